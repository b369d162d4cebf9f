package dev.stagecraft.planner.plan;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The workspace's state as the planner sees it: serial, lineage and instances by address, read from
 * Terraform state format v4, and the v4 document itself (for the plan's {@code prior_state} and the
 * prior values of outputs).
 *
 * @param document the v4 document as given (maps, lists and scalars), or null
 * @param openedOutputs the clear values of the root outputs whose value the document holds sealed
 *     (docs/adr/0064), by name; empty when none is sealed or none was opened
 */
public record PriorState(
    long serial,
    String lineage,
    Map<String, PriorInstance> instances,
    Map<String, Object> document,
    Map<String, Object> openedOutputs) {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  public PriorState {
    instances = Map.copyOf(instances);
    openedOutputs =
        openedOutputs == null
            ? Map.of()
            : Collections.unmodifiableMap(new LinkedHashMap<>(openedOutputs));
  }

  /** A state read from {@code document}, nothing opened. */
  public PriorState(
      long serial,
      String lineage,
      Map<String, PriorInstance> instances,
      Map<String, Object> document) {
    this(serial, lineage, instances, document, Map.of());
  }

  /** A state built in code, without a v4 document. */
  public PriorState(long serial, String lineage, Map<String, PriorInstance> instances) {
    this(serial, lineage, instances, null);
  }

  public static PriorState empty() {
    return new PriorState(0, null, Map.of(), null);
  }

  /** The value of root output {@code name} as the document holds it (sealed or not), or null. */
  public Object recordedOutputValue(String name) {
    if (document != null
        && document.get("outputs") instanceof Map<?, ?> outputs
        && outputs.get(name) instanceof Map<?, ?> output) {
      return output.get("value");
    }
    return null;
  }

  public Optional<PriorInstance> instance(String address) {
    return Optional.ofNullable(instances.get(address));
  }

  /** Instances of the resource {@code type.name}, by address. */
  public List<PriorInstance> instancesOf(String resourceAddress) {
    return instances.values().stream()
        .filter(i -> i.resourceAddress().equals(resourceAddress))
        .sorted(Comparator.comparing(PriorInstance::address))
        .toList();
  }

  /** Addresses of instances in modules ({@code module.net.null_resource.a}), sorted. */
  public List<String> moduleInstances() {
    return instances.keySet().stream().filter(a -> a.startsWith("module.")).sorted().toList();
  }

  /**
   * Root outputs recorded in state: name → {@code {value, type, sensitive}}, a sealed value opened
   * ({@link #openedOutputs}).
   */
  @SuppressWarnings("unchecked")
  public Map<String, Map<String, Object>> outputs() {
    if (document == null || !(document.get("outputs") instanceof Map<?, ?> outputs)) {
      return Map.of();
    }
    Map<String, Map<String, Object>> out = new LinkedHashMap<>();
    outputs.forEach(
        (k, v) -> {
          if (v instanceof Map<?, ?> m) {
            String name = String.valueOf(k);
            Map<String, Object> output = (Map<String, Object>) m;
            if (openedOutputs.containsKey(name)) {
              output = new LinkedHashMap<>(output);
              output.put("value", openedOutputs.get(name));
            }
            out.put(name, output);
          }
        });
    return out;
  }

  /** Reads a Terraform v4 state document; {@code null} or blank means an empty state. */
  public static PriorState fromV4Json(String json) {
    if (json == null || json.isBlank()) {
      return empty();
    }
    try {
      return fromV4(MAPPER.readTree(json));
    } catch (IOException e) {
      throw new IllegalArgumentException("state is not valid JSON: " + e.getMessage(), e);
    }
  }

  /**
   * Reads a Terraform v4 state document and opens its sealed attribute values (docs/adr/0024).
   *
   * @throws AttributeSealing.SealedStateException when a sealed value cannot be opened (the message
   *     names where, and the key id)
   */
  public static PriorState fromV4Json(String json, AttributeSealing sealing) {
    return sealing.open(fromV4Json(json));
  }

  @SuppressWarnings("unchecked")
  public static PriorState fromV4(JsonNode root) {
    Map<String, PriorInstance> instances = new LinkedHashMap<>();
    for (JsonNode resource : root.path("resources")) {
      if (!"managed".equals(resource.path("mode").asText("managed"))) {
        continue;
      }
      String type = resource.path("type").asText();
      String name = resource.path("name").asText();
      // an instance in a module keeps its module path, so it never stands for a root resource
      String module = resource.hasNonNull("module") ? resource.get("module").asText() + "." : "";
      for (JsonNode instance : resource.path("instances")) {
        String address = module + type + "." + name + indexSuffix(instance.get("index_key"));
        Map<String, Object> attributes =
            instance.has("attributes")
                ? MAPPER.convertValue(instance.get("attributes"), LinkedHashMap.class)
                : Map.of();
        List<String> dependencies = new ArrayList<>();
        instance.path("dependencies").forEach(d -> dependencies.add(d.asText()));
        boolean tainted = "tainted".equals(instance.path("status").asText(""));
        instances.put(
            address,
            new PriorInstance(
                address,
                type,
                name,
                attributes,
                dependencies,
                tainted,
                instance.path("create_before_destroy").asBoolean(false),
                instance.path("skip_destroy").asBoolean(false),
                sensitivePaths(instance.path("sensitive_attributes"))));
      }
    }
    return new PriorState(
        root.path("serial").asLong(0),
        root.hasNonNull("lineage") ? root.get("lineage").asText() : null,
        instances,
        root.isObject() ? MAPPER.convertValue(root, LinkedHashMap.class) : null);
  }

  /**
   * Terraform's {@code sensitive_attributes} as paths (attribute name, then map keys and list
   * indexes): a list of paths of steps {@code {"type":"get_attr","value":"a"}} / {@code
   * {"type":"index","value":{"value":"k","type":"string"}}}, or (older form) a list of single
   * steps. Unknown step forms end the path there (the value above is then sensitive as a whole).
   */
  static List<List<Object>> sensitivePaths(JsonNode sensitive) {
    List<List<Object>> out = new ArrayList<>();
    for (JsonNode path : sensitive) {
      List<Object> steps = new ArrayList<>();
      for (JsonNode step : path.isArray() ? path : List.of(path)) {
        JsonNode value = step.path("value");
        if ("get_attr".equals(step.path("type").asText()) && value.isTextual()) {
          steps.add(value.asText());
        } else if ("index".equals(step.path("type").asText())
            && value.path("value").isIntegralNumber()) {
          steps.add(value.path("value").asInt());
        } else if ("index".equals(step.path("type").asText()) && value.path("value").isTextual()) {
          steps.add(value.path("value").asText());
        } else {
          break;
        }
      }
      if (!steps.isEmpty() && steps.get(0) instanceof String && !out.contains(steps)) {
        out.add(steps);
      }
    }
    return out;
  }

  private static String indexSuffix(JsonNode key) {
    if (key == null || key.isNull()) {
      return "";
    }
    return key.isNumber() ? "[" + key.asText() + "]" : "[\"" + key.asText() + "\"]";
  }
}
