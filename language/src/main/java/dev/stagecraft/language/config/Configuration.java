package dev.stagecraft.language.config;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The decoded configuration of one module (all its files). Immutable. {@code removed} and {@code
 * moved} blocks are kept raw: the planner reads them ({@code RemovedBlock}, {@code MovedBlock}).
 *
 * @param dataSources the {@code data} blocks (only {@code terraform_remote_state} is supported)
 * @param modules the {@code module} calls (docs/adr/0065)
 */
public record Configuration(
    Map<String, VariableDecl> variables,
    List<ResourceDecl> resources,
    List<LocalDecl> locals,
    List<OutputDecl> outputs,
    List<BlockDecl> removed,
    List<BlockDecl> moved,
    Optional<String> requiredVersion,
    List<CheckDecl> checks,
    List<DataDecl> dataSources,
    List<ModuleCallDecl> modules) {

  public Configuration {
    variables = Collections.unmodifiableMap(new LinkedHashMap<>(variables));
    resources = List.copyOf(resources);
    locals = List.copyOf(locals);
    outputs = List.copyOf(outputs);
    removed = List.copyOf(removed);
    moved = List.copyOf(moved);
    checks = checks == null ? List.of() : List.copyOf(checks);
    dataSources = dataSources == null ? List.of() : List.copyOf(dataSources);
    modules = modules == null ? List.of() : List.copyOf(modules);
  }

  public static Configuration empty() {
    return new Configuration(
        Map.of(),
        List.of(),
        List.of(),
        List.of(),
        List.of(),
        List.of(),
        Optional.empty(),
        List.of(),
        List.of(),
        List.of());
  }

  /** The resource with the given address ({@code type.name}). */
  public Optional<ResourceDecl> resource(String address) {
    return resources.stream().filter(r -> r.address().equals(address)).findFirst();
  }
}
