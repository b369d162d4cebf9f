package dev.stagecraft.planner.service.adapter.git;

import dev.stagecraft.planner.service.source.GitCredentials;
import dev.stagecraft.planner.service.source.GitSource;
import dev.stagecraft.planner.service.source.RepositoryUrls;
import dev.stagecraft.planner.service.source.SourceUnavailable;
import java.net.UnknownHostException;
import java.util.Collection;
import java.util.Locale;
import java.util.TreeSet;

/**
 * Turns what JGit throws into a {@link SourceUnavailable} a user can act on: the repository cannot
 * be reached, it refused the credentials, or it does not exist. The cause's text is cleaned of the
 * source's secret and of any password in a URL. Stateless.
 */
final class GitErrors {
  private GitErrors() {}

  /** True when {@code e} says the server could not be talked to, or refused who we are. */
  static boolean unreachable(Throwable e) {
    String m = causes(e);
    return refusedCredentials(m)
        || m.contains("connection refused")
        || m.contains("unknownhost")
        || m.contains("unknown host")
        || m.contains("timed out")
        || m.contains("timeout")
        || m.contains("no route to host");
  }

  static SourceUnavailable of(String shown, GitSource source, Throwable e) {
    String all = causes(e);
    String cause = clean(source, e);
    if (refusedCredentials(all)) {
      if (source.credentials() instanceof GitCredentials.None) {
        return new SourceUnavailable(
            "repository "
                + shown
                + " asks for credentials (or does not exist): "
                + cause
                + "; give the source a token that may read it",
            e);
      }
      return new SourceUnavailable(
          "the credentials were refused by "
              + shown
              + ": "
              + cause
              + "; check the token and that it may read the repository",
          e);
    }
    if (all.contains("not found")
        || all.contains("not exported")
        || all.contains("does not appear to be a git repository")) {
      return new SourceUnavailable(
          "repository " + shown + " does not exist: " + cause + "; check the URL", e);
    }
    return new SourceUnavailable(
        "repository "
            + shown
            + " cannot be reached: "
            + cause
            + "; check the URL and that the planner can reach it",
        e);
  }

  /**
   * The names below {@code prefix} among {@code refs}, for a message ("none" when there are none).
   */
  static String names(Collection<String> refs, String prefix) {
    TreeSet<String> out = new TreeSet<>();
    for (String r : refs) {
      if (r.startsWith(prefix) && !r.endsWith("^{}")) {
        out.add(r.substring(prefix.length()));
      }
    }
    if (out.isEmpty()) {
      return "no " + (prefix.endsWith("tags/") ? "tags" : "branches");
    }
    String kind = prefix.endsWith("tags/") ? "tags " : "branches ";
    return out.size() <= 10
        ? kind + String.join(", ", out)
        : kind + String.join(", ", out.stream().limit(10).toList()) + ", …";
  }

  private static boolean refusedCredentials(String m) {
    return m.contains("not authorized")
        || m.contains("authentication is required")
        || m.contains("authentication not supported")
        || m.contains("not permitted")
        || m.contains("401 unauthorized")
        || m.contains("403 forbidden")
        || m.contains("auth fail");
  }

  /** The messages of {@code e} and its causes, in lower case. */
  private static String causes(Throwable e) {
    StringBuilder out = new StringBuilder();
    for (Throwable t = e; t != null && out.length() < 4000; t = t.getCause()) {
      out.append(t.getClass().getSimpleName()).append(": ").append(t.getMessage()).append('\n');
    }
    return out.toString().toLowerCase(Locale.ROOT);
  }

  /** The innermost useful message, without the source's secret or a URL's password. */
  private static String clean(GitSource source, Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t && (t.getMessage() == null)) {
      t = t.getCause();
    }
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String text = t.getMessage() == null ? t.toString() : t.getMessage();
    if (root != t) {
      String why =
          root instanceof UnknownHostException
              ? "unknown host " + root.getMessage()
              : root.getClass().getSimpleName() + ": " + root.getMessage();
      if (!text.contains(why)) {
        text = text + " (" + why + ")";
      }
    }
    text = RepositoryUrls.redacted(text.strip());
    if (source.credentials() instanceof GitCredentials.HttpsToken token
        && token.token() != null
        && !token.token().isEmpty()) {
      text = text.replace(token.token(), "***");
    }
    return text.replaceAll("(?i)(://[^/@\\s]*):[^/@\\s]*@", "$1:***@");
  }
}
