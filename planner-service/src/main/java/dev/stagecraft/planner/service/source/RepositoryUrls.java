package dev.stagecraft.planner.service.source;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Repository URLs a workspace may follow: which are allowed ({@code https}, {@code http}, {@code
 * ssh}, {@code git}, and the scp-like {@code user@host:path}; never {@code file:} or a local path,
 * so a tenant cannot make the planner read its own disk), and the form in which two spellings of
 * one repository compare equal ({@link #key}). Stateless.
 */
public final class RepositoryUrls {
  private static final Set<String> SCHEMES = Set.of("https", "http", "ssh", "git");

  /** {@code user@host:path}, as git and the forges' "ssh_url" write an ssh address. */
  private static final Pattern SCP_LIKE =
      Pattern.compile("^([A-Za-z0-9._~-]+)@([A-Za-z0-9.-]+):(?!//)(.+)$");

  private RepositoryUrls() {}

  /** Why {@code url} cannot be followed, in words for its author; empty when it can. */
  public static Optional<String> problem(String url) {
    if (url == null || url.isBlank()) {
      return Optional.of("The source names no repository URL: send \"url\": \"https://…\".");
    }
    if (url.chars().anyMatch(c -> c <= ' ' || c == 0x7f)) {
      return Optional.of("The repository URL holds a space or a control character.");
    }
    if (SCP_LIKE.matcher(url).matches()) {
      return Optional.empty();
    }
    URI uri;
    try {
      uri = new URI(url);
    } catch (URISyntaxException e) {
      return Optional.of("The repository URL is not a URL: " + e.getMessage() + ".");
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    if (!SCHEMES.contains(scheme)) {
      return Optional.of(
          "The repository URL must use https, http, ssh or git (or be user@host:path); "
              + (scheme.isEmpty() ? "a local path" : scheme + ":")
              + " is not allowed: the planner only fetches from a server.");
    }
    if (uri.getHost() == null || uri.getHost().isEmpty()) {
      return Optional.of("The repository URL names no host: " + scheme + "://HOST/PATH.");
    }
    if (uri.getRawUserInfo() != null && uri.getRawUserInfo().contains(":")) {
      return Optional.of(
          "The repository URL holds a password: send it as \"token\" instead, so it is sealed"
              + " and never shown.");
    }
    if (uri.getRawQuery() != null || uri.getRawFragment() != null) {
      return Optional.of("The repository URL may not have a query (?…) or a fragment (#…).");
    }
    return Optional.empty();
  }

  /** True for the ssh forms ({@code ssh://…} and {@code user@host:path}). */
  public static boolean isSsh(String url) {
    return url != null
        && (url.regionMatches(true, 0, "ssh://", 0, 6) || SCP_LIKE.matcher(url).matches());
  }

  /**
   * The form in which two spellings of one repository are equal: scheme and host in lower case, no
   * user, no default port, no trailing {@code /} or {@code .git}; {@code user@host:path} as {@code
   * ssh://host/path}. A URL that is not allowed is its own key.
   */
  public static String key(String url) {
    if (url == null) {
      return "";
    }
    String u = url.strip();
    Matcher scp = SCP_LIKE.matcher(u);
    String scheme;
    String host;
    int port;
    String path;
    if (scp.matches()) {
      scheme = "ssh";
      host = scp.group(2);
      port = -1;
      path = "/" + scp.group(3);
    } else {
      URI uri;
      try {
        uri = new URI(u);
      } catch (URISyntaxException e) {
        return u;
      }
      if (uri.getScheme() == null || uri.getHost() == null) {
        return u;
      }
      scheme = uri.getScheme();
      host = uri.getHost();
      port = uri.getPort();
      path = uri.getRawPath() == null ? "" : uri.getRawPath();
    }
    scheme = scheme.toLowerCase(Locale.ROOT);
    host = host.toLowerCase(Locale.ROOT);
    path = path.replaceAll("/{2,}", "/");
    while (path.endsWith("/") || path.endsWith(".git")) {
      path = path.endsWith("/") ? path.substring(0, path.length() - 1) : stripGit(path);
    }
    boolean defaultPort =
        port == -1
            || (scheme.equals("https") && port == 443)
            || (scheme.equals("http") && port == 80)
            || (scheme.equals("ssh") && port == 22)
            || (scheme.equals("git") && port == 9418);
    return scheme + "://" + host + (defaultPort ? "" : ":" + port) + path;
  }

  /**
   * The host an allowed URL names (an IPv6 literal without its brackets); empty for a URL that is
   * not allowed.
   */
  public static Optional<String> host(String url) {
    if (problem(url).isPresent()) {
      return Optional.empty();
    }
    Matcher scp = SCP_LIKE.matcher(url);
    String host = scp.matches() ? scp.group(2) : URI.create(url).getHost();
    return Optional.of(
        host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host);
  }

  private static String stripGit(String path) {
    return path.substring(0, path.length() - ".git".length());
  }

  /**
   * The URL without a user's password ({@code https://user:secret@host} → {@code
   * https://user@host}), for messages and logs.
   */
  public static String redacted(String url) {
    if (url == null) {
      return "";
    }
    return url.replaceAll("(?i)^([a-z][a-z0-9+.-]*://[^/@:]*):[^/@]*@", "$1:***@");
  }
}
