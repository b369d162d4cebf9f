package dev.stagecraft.language.config;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * A git module source, as Terraform writes it (docs/adr/0065): {@code git::URL[//SUBDIR][?ref=REF]}
 * with URL in the schemes {@code https}, {@code http}, {@code ssh}, {@code git} or {@code file}, or
 * the scp-like {@code git::user@host:path}. The repository is fetched by the CLI, never by the
 * planner: the CLI sends its files under {@link #directory()} (a reserved directory of the
 * configuration, {@value #RESERVED}/HASH, HASH naming {@link #packageAddress()}), where the planner
 * reads them.
 *
 * @param url the repository's URL as given to git (no {@code git::}, subdirectory or query)
 * @param subdir the module's directory inside the repository, {@code ""} for its root
 * @param ref the branch, tag or commit to check out, {@code ""} for the remote's HEAD
 */
public record GitSource(String url, String subdir, String ref) {
  /** The directory of the configuration under which the CLI sends fetched repositories. */
  public static final String RESERVED = ".stagecraft/modules";

  private static final Set<String> SCHEMES = Set.of("https", "http", "ssh", "git", "file");

  /** A source that is not a valid git source: {@code message} says what is wrong and how to fix. */
  public static final class InvalidException extends IllegalArgumentException {
    InvalidException(String message) {
      super(message);
    }
  }

  /** A source written as a git source: {@code git::...}. */
  public static boolean isGit(String source) {
    return source.startsWith("git::");
  }

  /**
   * Parses a {@code git::} source.
   *
   * @throws InvalidException naming what is wrong, with an example of a valid source
   */
  public static GitSource parse(String source) {
    if (!isGit(source)) {
      throw invalid(source, "it does not begin with git::");
    }
    String rest = source.substring("git::".length());
    String query = "";
    int q = rest.indexOf('?');
    if (q >= 0) {
      query = rest.substring(q + 1);
      rest = rest.substring(0, q);
    }
    int schemeEnd = rest.indexOf("://");
    int subdirAt;
    if (schemeEnd >= 0) {
      String scheme = rest.substring(0, schemeEnd).toLowerCase(Locale.ROOT);
      if (!SCHEMES.contains(scheme)) {
        throw invalid(
            source, "the URL scheme \"" + scheme + "\" is not one of https, http, ssh, git, file");
      }
      subdirAt = rest.indexOf("//", schemeEnd + 3);
      String authority = rest.substring(schemeEnd + 3, subdirAt < 0 ? rest.length() : subdirAt);
      int slash = authority.indexOf('/');
      String host = slash < 0 ? authority : authority.substring(0, slash);
      if (host.isEmpty() && !scheme.equals("file")) {
        throw invalid(source, "the URL has no host");
      }
      if (host.contains("@") && host.substring(0, host.lastIndexOf('@')).contains(":")) {
        throw new InvalidException(
            "The git source \""
                + redacted(source)
                + "\" holds a password in its URL. Credentials are never written in a source (it is"
                + " sent with the configuration and written to .stagecraft/modules.lock.json): put"
                + " them in ~/.netrc (machine HOST login USER password TOKEN) and write the URL"
                + " without them.");
      }
      if (slash < 0 || authority.length() == slash + 1) {
        throw invalid(source, "the URL names no repository path");
      }
    } else {
      // scp-like: user@host:path
      int colon = rest.indexOf(':');
      int at = rest.indexOf('@');
      if (at <= 0 || colon < at + 2 || colon == rest.length() - 1) {
        throw invalid(
            source, "\"" + rest + "\" is neither a URL (scheme://host/path) nor user@host:path");
      }
      subdirAt = rest.indexOf("//", colon);
    }
    String url = subdirAt < 0 ? rest : rest.substring(0, subdirAt);
    String subdir = subdirAt < 0 ? "" : rest.substring(subdirAt + 2);
    while (subdir.endsWith("/")) {
      subdir = subdir.substring(0, subdir.length() - 1);
    }
    for (String segment : subdir.split("/", -1)) {
      if (!subdir.isEmpty() && (segment.isEmpty() || segment.equals(".") || segment.equals(".."))) {
        throw invalid(
            source,
            "the subdirectory \""
                + subdir
                + "\" after // is not a plain path inside the repository (no empty, . or .."
                + " segments)");
      }
    }
    Map<String, String> args = query(source, query);
    if (args.containsKey("sshkey")) {
      throw new InvalidException(
          "The git source \""
              + redacted(source)
              + "\" has the argument sshkey: Stagecraft does not take private keys in a source."
              + " Remove it; the CLI fetches with your own credentials.");
    }
    String ref = args.getOrDefault("ref", "");
    String depth = args.get("depth");
    if (depth != null && !depth.matches("[1-9][0-9]{0,8}")) {
      throw invalid(source, "depth must be a positive whole number, not \"" + depth + "\"");
    }
    return new GitSource(url, subdir, ref);
  }

  private static Map<String, String> query(String source, String query) {
    Map<String, String> args = new LinkedHashMap<>();
    if (query.isEmpty()) {
      return args;
    }
    for (String pair : query.split("&", -1)) {
      int eq = pair.indexOf('=');
      String name = eq < 0 ? pair : pair.substring(0, eq);
      String value = eq < 0 ? "" : pair.substring(eq + 1);
      if (!Set.of("ref", "depth", "sshkey").contains(name)) {
        throw invalid(
            source,
            "the argument \"" + name + "\" is not one of ref, depth (after ?, as ?ref=v1.2)");
      }
      if (value.isEmpty()) {
        throw invalid(source, "the argument " + name + " has no value (write ?" + name + "=VALUE)");
      }
      if (args.put(name, value) != null) {
        throw invalid(source, "the argument " + name + " is given twice");
      }
    }
    return args;
  }

  private static InvalidException invalid(String source, String why) {
    return new InvalidException(
        "The git source \""
            + redacted(source)
            + "\" is not valid: "
            + why
            + ". Write it as git::https://host/repo.git//dir?ref=v1.2 (//dir and ?ref are"
            + " optional).");
  }

  /** The source with any password in its URL replaced by {@code ***}. */
  public static String redacted(String source) {
    return source.replaceAll("(://[^/@:]*):[^/@]*@", "$1:***@");
  }

  /**
   * The repository at its ref, without the subdirectory: {@code git::URL?ref=REF}. Every module
   * call of one repository and ref shares its checkout (and its pin in the lock file).
   */
  public String packageAddress() {
    return "git::" + url + (ref.isEmpty() ? "" : "?ref=" + ref);
  }

  /** The checkout's directory in the configuration: {@value #RESERVED}/HASH. */
  public String checkoutDirectory() {
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256")
              .digest(packageAddress().getBytes(StandardCharsets.UTF_8));
      return RESERVED + "/" + HexFormat.of().formatHex(digest, 0, 8);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The module's directory in the configuration: the checkout's, then the subdirectory. */
  public String directory() {
    return subdir.isEmpty() ? checkoutDirectory() : checkoutDirectory() + "/" + subdir;
  }

  /** Whether the repository is reached over ssh ({@code ssh://} or {@code user@host:path}). */
  public boolean ssh() {
    return url.startsWith("ssh://") || !url.contains("://");
  }
}
