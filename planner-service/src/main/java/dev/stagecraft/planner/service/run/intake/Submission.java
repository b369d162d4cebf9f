package dev.stagecraft.planner.service.run.intake;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A request to start a run, as the public API ({@code POST /api/v1/runs}) and chat-ops triggers
 * ({@code dev.stagecraft.run.requested}) both make it, once their own wire format is decoded and
 * their configuration version (if any) resolved.
 *
 * @param supportFiles non-configuration files by path, decoded (null: none)
 * @param variables values by name (null: none)
 * @param hclVariables the names among {@code variables} whose values are HCL expressions
 * @param replace addresses to replace (null: none)
 * @param parallelism the run's parallelism; null: the workspace's setting
 * @param coalescingKey what the run is for, on a workspace with coalescing on; null: {@code
 *     default} (docs/adr/0023)
 * @param requestedBy who asked, as the run's records show it
 * @param pendingMessage shown with the run's {@code pending} transition; null: none
 * @param description what the run's records keep beside the run (the API's message and
 *     configuration version); null: nothing
 * @param key what makes a repeated submission harmless ({@link IdempotencyKey})
 */
public record Submission(
    String tenant,
    String workspace,
    Map<String, String> files,
    Map<String, byte[]> supportFiles,
    Map<String, String> variables,
    Set<String> hclVariables,
    boolean destroy,
    List<String> replace,
    Long expectedSerial,
    String expectedDigest,
    Integer parallelism,
    String coalescingKey,
    String requestedBy,
    String pendingMessage,
    Description description,
    IdempotencyKey key) {

  public Submission {
    supportFiles = supportFiles == null ? Map.of() : supportFiles;
    hclVariables = hclVariables == null ? Set.of() : Set.copyOf(hclVariables);
    key = key == null ? new IdempotencyKey.None() : key;
  }

  /**
   * What the public API records with a run beyond its request: the caller's message and the
   * configuration version the files came from (either may be null).
   */
  public record Description(String message, String configurationVersion) {}
}
