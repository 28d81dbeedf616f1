package io.sluice.app.dlq;

import io.sluice.ops.dlq.ReadOptions;
import io.sluice.ops.dlq.RecordFilter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;

/** Which records {@code inspect} and {@code unwrap} read. */
final class ReadFlags {
  @Option(names = "--max-messages", paramLabel = "N", description = "at most N records (default: all)")
  Integer maxMessages;

  @Option(names = "--timeout-ms", paramLabel = "MS", defaultValue = "10000",
      description = "stop when no record arrived for this long (default ${DEFAULT-VALUE})")
  long timeoutMs;

  @Option(names = "--from-beginning", description = "the oldest records first; otherwise the newest --max-messages")
  boolean fromBeginning;

  @Option(names = "--sample", paramLabel = "N", description = "N records spread evenly over the topic")
  Integer sample;

  @Option(names = "--filter", paramLabel = "FIELD=VALUE",
      description = "exception=CLASS, stage=STAGE, connector=NAME or topic=ORIGINAL; repeatable, all must match")
  List<String> filters = new ArrayList<>();

  ReadOptions options() {
    // Without a limit the whole topic is read, oldest first, whatever --from-beginning says.
    boolean oldestFirst = fromBeginning || maxMessages == null;
    return new ReadOptions(maxMessages, Duration.ofMillis(timeoutMs), oldestFirst, sample,
        RecordFilter.parse(filters));
  }
}
