package dev.stagecraft.planner.plan;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What the planner service read for one {@code data "terraform_remote_state"} block before planning
 * (docs/planning.md "Remote state"): the workspace's root outputs, no state at all, or a refusal
 * with the reason the plan reports at the block.
 */
public sealed interface RemoteStateRead {

  /**
   * The workspace's root outputs as its Terraform v4 state holds them.
   *
   * @param outputs name → {@code {"value": ..., "type": ..., "sensitive": true|false}}
   * @param workspace the workspace they were read from (whose sealing opens a sealed value, ADR
   *     0064), or null when not known
   */
  record Found(Map<String, Map<String, Object>> outputs, String workspace)
      implements RemoteStateRead {
    public Found {
      outputs = Map.copyOf(outputs);
    }

    /** Outputs of an unnamed workspace. */
    public Found(Map<String, Map<String, Object>> outputs) {
      this(outputs, null);
    }

    /** These outputs of {@code workspace}. */
    public Found of(String workspace) {
      return new Found(outputs, workspace);
    }

    /** Never the values: sensitive ones are among them. */
    @Override
    public String toString() {
      return "Found[outputs=" + outputs.keySet() + "]";
    }
  }

  /** The workspace has no state (never written, or deleted). */
  record NotFound() implements RemoteStateRead {}

  /**
   * The read was refused; {@code detail} says why and what to do (no secret in it).
   *
   * @param detail e.g. the address is not this Stagecraft's, or the credential was refused
   */
  record Refused(String detail) implements RemoteStateRead {}

  /** {@link Found} from a v4 document's {@code outputs} object (absent: no outputs). */
  @SuppressWarnings("unchecked")
  static Found fromOutputs(JsonNode outputs, ObjectMapper mapper) {
    Map<String, Map<String, Object>> out = new LinkedHashMap<>();
    if (outputs != null && outputs.isObject()) {
      outputs
          .properties()
          .forEach(
              e -> {
                if (e.getValue().isObject()) {
                  out.put(e.getKey(), mapper.convertValue(e.getValue(), LinkedHashMap.class));
                }
              });
    }
    return new Found(out);
  }

  /** {@link Found} from the {@code outputs} object of a v4 state document given as JSON text. */
  static Found fromV4Json(String json) {
    ObjectMapper mapper = new ObjectMapper();
    try {
      return fromOutputs(mapper.readTree(json).get("outputs"), mapper);
    } catch (IOException e) {
      throw new IllegalArgumentException("state is not valid JSON: " + e.getMessage(), e);
    }
  }
}
