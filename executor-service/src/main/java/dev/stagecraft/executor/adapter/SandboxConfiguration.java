package dev.stagecraft.executor.adapter;

import dev.stagecraft.executor.sandbox.SandboxSettings;
import io.micronaut.context.annotation.Value;
import io.micronaut.core.convert.format.ReadableBytes;
import jakarta.inject.Singleton;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * The sandbox's settings from the environment ({@code STAGECRAFT_EXECUTOR_SANDBOX*},
 * executor-service/README.md), checked at start-up: a wrong value stops the executor with a message
 * naming the variable.
 */
@Singleton
final class SandboxConfiguration {
  private final String mode;
  private final SandboxSettings settings;
  private final long stepOutputLimit;

  SandboxConfiguration(
      @Value("${stagecraft.executor.sandbox.mode:on}") String mode,
      @Value("${stagecraft.executor.sandbox.directory:/run/stagecraft/sandbox}") String directory,
      @Value("${stagecraft.executor.sandbox.uids:200000-200999}") String uids,
      @Value("${stagecraft.executor.sandbox.memory:2GB}") @ReadableBytes long memory,
      @Value("${stagecraft.executor.sandbox.disk:512MB}") @ReadableBytes long disk,
      @Value("${stagecraft.executor.sandbox.processes:512}") int processes,
      @Value("${stagecraft.executor.sandbox.cpus:1}") double cpus,
      @Value("${stagecraft.executor.sandbox.system-paths:}") String systemPaths,
      @Value("${stagecraft.executor.sandbox.shared-paths:}") String sharedPaths,
      @Value("${stagecraft.executor.step-output-limit:10MB}") @ReadableBytes long stepOutputLimit) {
    this.mode = mode;
    int[] range = SandboxSettings.parseUidRange(uids);
    this.settings =
        new SandboxSettings(
            Path.of(directory),
            range[0],
            range[1],
            memory,
            disk,
            processes,
            cpus,
            systemPaths == null || systemPaths.isBlank()
                ? SandboxSettings.DEFAULT_SYSTEM_PATHS
                : list(systemPaths),
            list(sharedPaths));
    this.stepOutputLimit = stepOutputLimit;
  }

  private static List<String> list(String commaSeparated) {
    return commaSeparated == null || commaSeparated.isBlank()
        ? List.of()
        : Arrays.stream(commaSeparated.split(",")).map(String::strip).toList();
  }

  String mode() {
    return mode;
  }

  SandboxSettings settings() {
    return settings;
  }

  long stepOutputLimit() {
    return stepOutputLimit;
  }
}
