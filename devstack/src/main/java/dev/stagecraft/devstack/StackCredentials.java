package dev.stagecraft.devstack;

import dev.stagecraft.platform.auth.ServiceRole;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.EnumMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The dev stack's service tokens (docs/internal-api.md, "Service roles"): one per role, generated
 * at the first start into its own 0600 file and reused, and which process gets which. A service
 * gets exactly the variables its {@link StackService#credentialNeeds()} names, the executor none.
 * The operator token goes to the state service only as a token it accepts; {@link
 * DevTenantBootstrap} is what presents it.
 */
public final class StackCredentials {
  private static final SecureRandom RANDOM = new SecureRandom();
  private final Map<ServiceRole, String> tokens;

  private StackCredentials(Map<ServiceRole, String> tokens) {
    this.tokens = tokens;
  }

  /**
   * The kept tokens, each generated (32 random bytes, hex) when its file is missing or empty. The
   * shared token file of earlier versions is removed.
   */
  static StackCredentials loadOrGenerate(DevStackLayout layout) throws IOException {
    Map<ServiceRole, String> tokens = new EnumMap<>(ServiceRole.class);
    for (ServiceRole role : ServiceRole.values()) {
      Path file = layout.serviceTokenFile(role);
      String kept = Files.isRegularFile(file) ? Files.readString(file).strip() : "";
      if (kept.isEmpty()) {
        byte[] bytes = new byte[32];
        RANDOM.nextBytes(bytes);
        kept = HexFormat.of().formatHex(bytes);
        StackFiles.writeString(file, kept + "\n", true);
      }
      tokens.put(role, kept);
    }
    Files.deleteIfExists(layout.retiredServiceTokenFile());
    return new StackCredentials(tokens);
  }

  /**
   * The tokens of a stack that has started once (for tests that start more service processes or
   * call internal routes themselves).
   *
   * @throws IllegalStateException when a token file is missing
   */
  public static StackCredentials read(DevStackLayout layout) throws IOException {
    Map<ServiceRole, String> tokens = new EnumMap<>(ServiceRole.class);
    for (ServiceRole role : ServiceRole.values()) {
      Path file = layout.serviceTokenFile(role);
      if (!Files.isRegularFile(file)) {
        throw new IllegalStateException(file + " does not exist: start the dev stack once first");
      }
      tokens.put(role, Files.readString(file).strip());
    }
    return new StackCredentials(tokens);
  }

  /** A role's token. */
  public String token(ServiceRole role) {
    return tokens.get(role);
  }

  /** The token variables of the service's process: those it holds, nothing else. */
  public Map<String, String> env(StackService service) {
    Map<String, String> env = new LinkedHashMap<>();
    for (ServiceRole role : service.credentialNeeds().holds()) {
      env.put(role.variable(), tokens.get(role));
    }
    return env;
  }
}
