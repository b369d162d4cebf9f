package dev.stagecraft.planner.plan;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Terraform's JSON plan representation ({@code terraform show -json}) of a {@link Plan}: {@code
 * format_version}, {@code resource_changes[]} with {@code change.actions}, {@code before}, {@code
 * after}, {@code after_unknown}, {@code replace_paths} and {@code action_reason}; {@code
 * output_changes}; {@code prior_state} (the v4 document planned against); {@code checks} (the
 * results of {@code check} blocks, when there are any). Sensitive values are never written: a
 * sensitive attribute is left out of {@code before}/{@code after} and named in {@code
 * before_sensitive}/{@code after_sensitive}; a sensitive output has null values and {@code
 * after_sensitive: true}. Stagecraft's own fields (workspace, prior serial and lineage, the order
 * constraints, the lifecycle flags that go to state) are under {@code stagecraft}. Keys are sorted
 * so the same plan always renders to the same bytes (its digest).
 *
 * <p>Written by {@link PlanCodec} (through a {@link PlanDocument}), which reads it back too; this
 * class keeps the plan's digest forms: the canonical rendering, the change documents and {@link
 * #covers}.
 */
public final class PlanJson {
  public static final String FORMAT_VERSION = "1.2";

  private PlanJson() {}

  /** Any JSON-able map rendered with sorted keys (the form digests are computed over). */
  static String canonical(Map<String, Object> document) {
    return PlanCodec.write(document);
  }

  public static String render(Plan plan) {
    return PlanCodec.encode(plan);
  }

  public static Map<String, Object> toMap(Plan plan) {
    return PlanCodec.toMap(PlanDocument.of(plan));
  }

  /**
   * What one change does, as {@link Plan#changeDigests} digests it: its {@code resource_changes}
   * entry (actions, before, after, unknown and sensitive attributes, replace paths, reason) with
   * the lifecycle flags and dependencies that go to state. Not its order constraints: which other
   * changes it waits for depends on what else the plan still does.
   */
  static Map<String, Object> changeDocument(PlannedAction a) {
    Map<String, Object> document = PlanCodec.resourceChange(PlanDocument.ResourceChange.of(a));
    document.put("create_before_destroy", a.createBeforeDestroy());
    document.put("skip_destroy", a.skipDestroy());
    document.put("dependencies", a.dependencies().stream().sorted().toList());
    return document;
  }

  /**
   * Whether {@code planned}, a change planned again after some of an approved plan's changes were
   * applied, is the change {@code approved} approved ({@link Plan#changeDocuments}, docs/adr/0051):
   * the same document, except that an attribute the approved change did not know yet (in its {@code
   * after_unknown}) may now have any value, known or not, as applying the approved plan would have
   * given it. An attribute unknown now but known when approved is not covered.
   *
   * @param approved a document of {@link Plan#changeDocuments}, as recorded
   * @param planned the document of the same address in the plan made again
   */
  public static boolean covers(String approved, String planned) {
    try {
      JsonNode a = PlanCodec.MAPPER.readTree(approved);
      JsonNode p = PlanCodec.MAPPER.readTree(planned);
      if (!(a.path("change") instanceof ObjectNode ac)
          || !(p.path("change") instanceof ObjectNode pc)) {
        return a.equals(p);
      }
      Set<String> wasUnknown = new HashSet<>();
      ac.path("after_unknown").fieldNames().forEachRemaining(wasUnknown::add);
      Set<String> isUnknown = new HashSet<>();
      pc.path("after_unknown").fieldNames().forEachRemaining(isUnknown::add);
      if (!wasUnknown.containsAll(isUnknown)) {
        return false;
      }
      for (ObjectNode change : List.of(ac, pc)) {
        if (change.get("after") instanceof ObjectNode after) {
          after.remove(wasUnknown);
        }
        change.remove("after_unknown");
      }
      return a.equals(p);
    } catch (JsonProcessingException e) {
      return false;
    }
  }
}
