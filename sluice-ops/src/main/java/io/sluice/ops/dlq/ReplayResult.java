package io.sluice.ops.dlq;

import java.util.Map;

/**
 * What a replay did.
 *
 * @param topic the dead-letter topic
 * @param group the consumer group holding its progress
 * @param dryRun whether nothing was produced
 * @param replayed records produced (in a dry run: that would be produced)
 * @param skippedReplayed records skipped because an earlier replay produced them and they failed again
 * @param skippedFiltered records passed over because the filter did not match
 * @param unroutable records without an original topic in their headers, or whose topic no longer exists
 * @param alreadyDelivered records a run that crashed after producing them but before committing had already delivered
 * @param perTarget records produced per target topic
 * @param resumedFrom the offset each dead-letter partition started from (the group's committed offset, or the start)
 * @param committed the offset committed for each partition at the end (the dry run's would-be position)
 * @param complete whether the replay reached the end the topic had when it started (false when stopped by a limit)
 * @param backup the file holding the group's offsets from before this run ({@code topic,partition,offset}, as
 *     {@code kafka-consumer-groups --reset-offsets --from-file} reads it), or null (dry run, no backup directory)
 */
public record ReplayResult(String topic, String group, boolean dryRun, long replayed, long skippedReplayed,
                           long skippedFiltered, long unroutable, long alreadyDelivered, Map<String, Long> perTarget,
                           Map<Integer, Long> resumedFrom, Map<Integer, Long> committed, boolean complete,
                           String backup) {}
