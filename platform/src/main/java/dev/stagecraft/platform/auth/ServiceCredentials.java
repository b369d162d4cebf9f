package dev.stagecraft.platform.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The service tokens one process holds (docs/internal-api.md, "Service roles"): the token of its
 * own role, which it presents on its calls, and the tokens of the roles its internal routes accept.
 *
 * <p>A presented token's role is the role whose configured token it equals. Tokens are opaque
 * random strings with no role written in them: nothing in a token is believed, and an operator
 * generates each with {@code openssl rand -hex 32}. Every configured token is compared, in constant
 * time and without stopping at a match, against a SHA-256 digest of the presented one; two roles
 * with the same token are refused at start, so a token is never taken for another role. A token of
 * a role this process was not given is as unknown as a guess.
 *
 * <p>Immutable and thread-safe.
 */
public final class ServiceCredentials {
  /** The one shared token of earlier versions: no longer read, refused at start. */
  public static final String RETIRED_VARIABLE = "STAGECRAFT_SERVICE_TOKEN";

  private static final Logger LOG = LoggerFactory.getLogger(ServiceCredentials.class);
  private static final String ROLE_VARIABLE_PREFIX = RETIRED_VARIABLE + "_";

  private final CredentialNeeds process;
  private final String ownToken;
  private final Map<ServiceRole, byte[]> digests;

  private ServiceCredentials(
      CredentialNeeds process, String ownToken, Map<ServiceRole, byte[]> digests) {
    this.process = process;
    this.ownToken = ownToken;
    this.digests = digests;
  }

  /**
   * Reads and checks a process's tokens; logs (at INFO) which roles it presents and accepts.
   *
   * @param configured the token configured for a role (null or blank: none); asked only for the
   *     roles the process may hold
   * @param environment the process's environment, searched for credential variables the process
   *     must not hold (the retired shared token, tokens of roles it neither presents nor accepts)
   * @throws IllegalStateException naming every variable to set or remove, and why; never a value
   */
  public static ServiceCredentials load(
      CredentialNeeds process,
      Function<ServiceRole, String> configured,
      Map<String, String> environment) {
    List<String> problems = new ArrayList<>(strayVariables(process, environment));
    Map<ServiceRole, String> tokens = new EnumMap<>(ServiceRole.class);
    boolean missing = false;
    for (ServiceRole role : process.holds()) {
      String token = configured.apply(role);
      if (token != null && !token.isBlank()) {
        tokens.put(role, token.strip());
      } else if (process.required().contains(role)) {
        problems.add(role.variable() + " is not set: " + purpose(process, role));
        missing = true;
      }
    }
    problems.addAll(sharedTokens(tokens));
    if (!problems.isEmpty()) {
      throw new IllegalStateException(
          process.service()
              + " cannot start: "
              + String.join("; ", problems)
              + "."
              + (missing || !tokens.isEmpty()
                  ? " Each role has its own token (generate one with `openssl rand -hex 32`)."
                  : "")
              + " docs/internal-api.md, \"Service roles\", says which process holds which.");
    }
    Map<ServiceRole, byte[]> digests = new EnumMap<>(ServiceRole.class);
    tokens.forEach((role, token) -> digests.put(role, digest(token)));
    ServiceCredentials credentials =
        new ServiceCredentials(process, process.presents().map(tokens::get).orElse(null), digests);
    LOG.info("{}", credentials);
    return credentials;
  }

  /**
   * Whether {@code name} is a variable that holds a service token: the retired shared one, or one
   * whose name starts with {@code STAGECRAFT_SERVICE_TOKEN_}, or a role's.
   */
  public static boolean isCredentialVariable(String name) {
    if (name.equals(RETIRED_VARIABLE) || name.startsWith(ROLE_VARIABLE_PREFIX)) {
      return true;
    }
    for (ServiceRole role : ServiceRole.values()) {
      if (role.variable().equals(name)) {
        return true;
      }
    }
    return false;
  }

  /** The process these credentials are for. */
  public CredentialNeeds process() {
    return process;
  }

  /**
   * The token this process presents on its calls.
   *
   * @throws IllegalStateException when the process calls no other service
   */
  public String ownToken() {
    if (ownToken == null) {
      throw new IllegalStateException(process.service() + " presents no service token");
    }
    return ownToken;
  }

  /** Whether this process was given the role's token (it can tell that role's calls). */
  public boolean knows(ServiceRole role) {
    return digests.containsKey(role);
  }

  /**
   * The role whose token was presented, or empty for a missing or unknown token. Every known token
   * is compared, in constant time, whatever matched before.
   */
  public Optional<ServiceRole> roleOf(String presented) {
    if (presented == null || presented.isEmpty()) {
      return Optional.empty();
    }
    byte[] candidate = digest(presented);
    ServiceRole match = null;
    for (Map.Entry<ServiceRole, byte[]> known : digests.entrySet()) {
      if (MessageDigest.isEqual(known.getValue(), candidate)) {
        match = known.getKey();
      }
    }
    return Optional.ofNullable(match);
  }

  /** Which roles the process presents and knows; never a token. */
  @Override
  public String toString() {
    return process.service()
        + " presents "
        + process.presents().map(ServiceRole::key).orElse("no service token")
        + " and knows the tokens of: "
        + (digests.isEmpty() ? "none" : ServiceRole.keys(digests.keySet()));
  }

  private static List<String> strayVariables(
      CredentialNeeds process, Map<String, String> environment) {
    Set<String> stray = new TreeSet<>();
    for (String name : environment.keySet()) {
      if (isCredentialVariable(name)
          && process.holds().stream().noneMatch(r -> r.variable().equals(name))) {
        stray.add(name);
      }
    }
    List<String> problems = new ArrayList<>();
    for (String name : stray) {
      if (name.equals(RETIRED_VARIABLE)) {
        problems.add(
            RETIRED_VARIABLE
                + " is no longer read (one token no longer opens every internal route): remove it"
                + (process.required().isEmpty()
                    ? ""
                    : " and set " + ServiceRole.variables(process.required()))
                + (process.optional().isEmpty()
                    ? ""
                    : " (and, to accept its role, "
                        + ServiceRole.variables(process.optional())
                        + ")"));
      } else {
        problems.add(name + " is set but " + process.service() + " " + noUseFor(process));
      }
    }
    return problems;
  }

  private static String noUseFor(CredentialNeeds process) {
    return process.holds().isEmpty()
        ? "holds no service token (it calls no service's internal API, and the commands it runs"
            + " could read it): remove it from its environment"
        : "does not use it (it holds only "
            + ServiceRole.variables(process.holds())
            + "): remove it from its environment";
  }

  private static String purpose(CredentialNeeds process, ServiceRole role) {
    return process.presents().filter(role::equals).isPresent()
        ? process.service() + " presents it on its calls"
        : process.service() + " accepts the " + role.key() + " role's calls with it";
  }

  private static List<String> sharedTokens(Map<ServiceRole, String> tokens) {
    List<String> problems = new ArrayList<>();
    List<ServiceRole> roles = List.copyOf(tokens.keySet());
    for (int i = 0; i < roles.size(); i++) {
      for (int j = i + 1; j < roles.size(); j++) {
        if (tokens.get(roles.get(i)).equals(tokens.get(roles.get(j)))) {
          problems.add(
              roles.get(i).variable()
                  + " and "
                  + roles.get(j).variable()
                  + " have the same value: give each role its own token");
        }
      }
    }
    return problems;
  }

  private static byte[] digest(String token) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
