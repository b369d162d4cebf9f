package dev.stagecraft.planner.service.run;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * This Stagecraft's own Terraform HTTP backend addresses (docs/terraform-backend.md): which
 * workspace a remote state's {@code config.address} names, if it is one of them (docs/planning.md
 * "Remote state", ADR 0063). The planner never requests such an address: it only reads the name of
 * the workspace from it and reads that workspace of the run's tenant itself, so a tenant cannot
 * make it request a URL of its choosing (SSRF), nor name another tenant (the address has no
 * tenant). Immutable, thread-safe.
 */
public final class StateAddresses {
  private static final Pattern STATE_PATH =
      Pattern.compile("/tf/v1/workspaces/([A-Za-z0-9][A-Za-z0-9_.-]{0,89})/state");

  private record Base(String scheme, String host, int port, String path) {}

  private final List<Base> bases = new ArrayList<>();
  private final String shown;

  /**
   * @param baseUrls the state service's URLs as clients know them (its public URL, and the one the
   *     planner uses); blank or null ones are skipped
   */
  public StateAddresses(String... baseUrls) {
    String first = null;
    for (String url : baseUrls) {
      if (url == null || url.isBlank()) {
        continue;
      }
      URI uri = URI.create(url.strip());
      bases.add(
          new Base(
              uri.getScheme().toLowerCase(Locale.ROOT),
              uri.getHost().toLowerCase(Locale.ROOT),
              port(uri),
              uri.getRawPath() == null ? "" : uri.getRawPath().replaceAll("/+$", "")));
      first = first == null ? url.strip().replaceAll("/+$", "") : first;
    }
    this.shown = first == null ? "<state URL>" : first;
  }

  /** The answer to {@link #workspaceOf}: the workspace named, or why the address is refused. */
  public record Resolved(Optional<String> workspace, String refusal) {}

  /**
   * The workspace {@code address} names when it is {@code <one of the base URLs>/tf/v1/workspaces/
   * NAME/state} exactly (no user info, query or fragment; scheme and host compared without case,
   * default ports as written or not); otherwise the reason it is refused.
   */
  public Resolved workspaceOf(String address) {
    URI uri;
    try {
      uri = new URI(address.strip());
    } catch (URISyntaxException e) {
      uri = null;
    }
    if (uri != null
        && uri.getScheme() != null
        && uri.getHost() != null
        && uri.getRawUserInfo() == null
        && uri.getRawQuery() == null
        && uri.getRawFragment() == null
        && uri.getRawPath() != null) {
      String scheme = uri.getScheme().toLowerCase(Locale.ROOT);
      String host = uri.getHost().toLowerCase(Locale.ROOT);
      int port = port(uri);
      for (Base base : bases) {
        if (base.scheme().equals(scheme)
            && base.host().equals(host)
            && base.port() == port
            && uri.getRawPath().startsWith(base.path() + "/")) {
          Matcher m = STATE_PATH.matcher(uri.getRawPath().substring(base.path().length()));
          if (m.matches()) {
            return new Resolved(Optional.of(m.group(1)), null);
          }
        }
      }
    }
    return new Resolved(
        Optional.empty(),
        "\""
            + address
            + "\" is not this Stagecraft's state address of a workspace. Stagecraft reads remote"
            + " state only from its own workspaces, of the run's own tenant: use "
            + shown
            + "/tf/v1/workspaces/NAME/state, or backend = \"stagecraft\" with config = {"
            + " workspace = \"NAME\" }. Nothing was requested from that address.");
  }

  private static int port(URI uri) {
    if (uri.getPort() >= 0) {
      return uri.getPort();
    }
    return "https".equalsIgnoreCase(uri.getScheme()) ? 443 : 80;
  }
}
