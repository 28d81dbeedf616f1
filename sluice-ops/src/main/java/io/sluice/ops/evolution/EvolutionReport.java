package io.sluice.ops.evolution;

import io.sluice.schema.CompatibilityLevel;
import io.sluice.schema.CompatibilityPolicy;
import io.sluice.schema.SchemaType;
import java.util.List;

/**
 * What registering a candidate schema under a subject would do: the verdict under the subject's mode and under every
 * other mode, why, in what order to roll it out, and good-practice warnings.
 */
public record EvolutionReport(String subject, SchemaType type, List<Integer> versions, CompatibilityLevel subjectLevel,
    CompatibilityPolicy policy, List<Verdict> verdicts, List<String> warnings) {

  /** One incompatibility: the format's name for it, where, and what it means in plain words. */
  public record Problem(String kind, String path, String description) {}

  /** The verdict under one mode; {@code againstVersion} is the first earlier version that breaks (0 when none). */
  public record Verdict(CompatibilityLevel level, boolean compatible, int againstVersion, List<Problem> problems) {}

  public Verdict verdict(CompatibilityLevel level) {
    return verdicts.stream().filter(v -> v.level() == level).findFirst().orElseThrow();
  }

  /** Whether the subject's own mode accepts the candidate: what registration would answer. */
  public boolean compatible() {
    return verdict(subjectLevel).compatible();
  }

  /** The safe order to deploy the new schema in, from what the candidate actually is compatible with. */
  public String rollout() {
    boolean backward = verdict(CompatibilityLevel.BACKWARD_TRANSITIVE).compatible()
        || verdict(CompatibilityLevel.BACKWARD).compatible();
    boolean forward = verdict(CompatibilityLevel.FORWARD_TRANSITIVE).compatible()
        || verdict(CompatibilityLevel.FORWARD).compatible();
    if (versions.isEmpty()) {
      return "first version of the subject: any order";
    }
    if (backward && forward) {
      return "any order: producers and consumers may upgrade independently (FULL)";
    }
    if (backward) {
      return "upgrade consumers first, then producers (BACKWARD: new readers understand old data)";
    }
    if (forward) {
      return "upgrade producers first, then consumers (FORWARD: old readers understand new data)";
    }
    return "no safe order: stop producers, drain the topic, then upgrade producers and consumers together";
  }
}
