package dev.stagecraft.executor.adapter;

import dev.stagecraft.executor.sandbox.BubblewrapSandbox;
import dev.stagecraft.executor.sandbox.SandboxSettings;
import dev.stagecraft.executor.step.LocalCommands;
import dev.stagecraft.executor.step.UnsandboxedCommands;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Chooses where {@code local-exec} commands run, from {@code STAGECRAFT_EXECUTOR_SANDBOX}: {@code
 * on} (the default) runs them in the bubblewrap sandbox, or — when it cannot be set up here —
 * refuses them with the reason; {@code off} runs them unsandboxed, as the executor itself, which
 * only a single-tenant installation may do and which is logged loudly and shown by {@code /health}.
 *
 * @param commands where the runner starts commands
 * @param health the {@code /health} detail {@code sandbox}: {@code status} on / off / unavailable,
 *     the limits, or the reason
 */
record SandboxSetup(LocalCommands commands, Map<String, Object> health) {
  private static final Logger LOG = LoggerFactory.getLogger(SandboxSetup.class);

  static SandboxSetup choose(String mode, SandboxSettings settings) {
    Map<String, Object> health = new LinkedHashMap<>();
    switch (mode == null ? "on" : mode.strip().toLowerCase(Locale.ROOT)) {
      case "off" -> {
        LOG.warn(
            "\n*** STAGECRAFT_EXECUTOR_SANDBOX=off: local-exec commands run UNSANDBOXED, as the"
                + " executor's own user, with its environment and files — credentials included."
                + " Only for a single-tenant installation whose every configuration is trusted. ***");
        health.put("status", "off");
        health.put(
            "warning",
            "local-exec commands run unsandboxed as the executor (single-tenant installations only)");
        return new SandboxSetup(new UnsandboxedCommands(Path.of("").toAbsolutePath()), health);
      }
      case "on", "" -> {
        try {
          BubblewrapSandbox sandbox = BubblewrapSandbox.create(settings);
          health.put("status", "on");
          health.put(
              "uids", settings.firstUid() + "-" + (settings.firstUid() + settings.uidCount() - 1));
          health.putAll(sandbox.limits());
          return new SandboxSetup(sandbox, health);
        } catch (LocalCommands.Unavailable e) {
          String reason = "the local-exec sandbox cannot be set up here: " + e.getMessage();
          LOG.error("\n*** {} ***", reason);
          health.put("status", "unavailable");
          health.put("reason", reason);
          return new SandboxSetup(
              action -> {
                throw new LocalCommands.Unavailable(reason);
              },
              health);
        }
      }
      default ->
          throw new IllegalArgumentException(
              "STAGECRAFT_EXECUTOR_SANDBOX must be on or off, got " + mode);
    }
  }
}
