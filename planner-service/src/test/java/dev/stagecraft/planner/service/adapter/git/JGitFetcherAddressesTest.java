package dev.stagecraft.planner.service.adapter.git;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import dev.stagecraft.planner.service.source.GitAddresses;
import dev.stagecraft.planner.service.source.GitCredentials;
import dev.stagecraft.planner.service.source.GitSource;
import dev.stagecraft.planner.service.source.KnownGitHosts;
import dev.stagecraft.planner.service.source.SourceUnavailable;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A tenant cannot point the planner's git fetch at the platform's own network: a repository host
 * that resolves to a loopback, link-local or private address is refused before anything connects,
 * unless the operator allowed that network, and an allowed server cannot redirect the fetch
 * elsewhere. Two loopback HTTP servers count the requests that reach them.
 */
class JGitFetcherAddressesTest {
  @TempDir Path dataDir;
  HttpServer repository;
  HttpServer elsewhere;
  final List<String> toRepository = new CopyOnWriteArrayList<>();
  final List<String> toElsewhere = new CopyOnWriteArrayList<>();

  @BeforeEach
  void servers() throws Exception {
    elsewhere = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    elsewhere.createContext(
        "/",
        exchange -> {
          toElsewhere.add(exchange.getRequestURI().toString());
          exchange.sendResponseHeaders(404, -1);
          exchange.close();
        });
    elsewhere.start();
    repository = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    repository.createContext(
        "/",
        exchange -> {
          toRepository.add(exchange.getRequestURI().toString());
          exchange
              .getResponseHeaders()
              .add(
                  "Location",
                  "http://127.0.0.1:" + elsewhere.getAddress().getPort() + "/internal/secrets");
          exchange.sendResponseHeaders(302, -1);
          exchange.close();
        });
    repository.start();
  }

  @AfterEach
  void stop() {
    repository.stop(0);
    elsewhere.stop(0);
  }

  private static GitSource source(String url) {
    return new GitSource(url, "main", "", new GitCredentials.None(), false);
  }

  private String repositoryUrl(String host) {
    return "http://" + host + ":" + repository.getAddress().getPort() + "/acme/infra.git";
  }

  @Test
  void aLoopbackRepositoryIsRefusedByDefaultBeforeAnythingConnects() {
    JGitFetcher fetcher =
        new JGitFetcher(dataDir, 10, KnownGitHosts.NONE, GitAddresses.PUBLIC_ONLY);

    assertThatThrownBy(() -> fetcher.fetch("acme", source(repositoryUrl("127.0.0.1")), null))
        .isInstanceOf(SourceUnavailable.class)
        .hasMessageContaining("repository host '127.0.0.1' resolves to 127.0.0.1, a loopback")
        .hasMessageContaining("STAGECRAFT_PLANNER_GIT_ALLOWED_NETWORKS");
    assertThat(toRepository).isEmpty();
  }

  @Test
  void aNameThatResolvesToTheMetadataServiceOrLoopbackIsRefused() {
    JGitFetcher fetcher =
        new JGitFetcher(
            dataDir,
            10,
            KnownGitHosts.NONE,
            GitAddresses.PUBLIC_ONLY,
            host ->
                List.of(
                    InetAddress.getByName("93.184.216.34"),
                    InetAddress.getByName(
                        host.startsWith("metadata") ? "169.254.169.254" : "127.0.0.1")));

    assertThatThrownBy(
            () -> fetcher.fetch("acme", source("https://metadata.example/acme/infra.git"), null))
        .isInstanceOf(SourceUnavailable.class)
        .hasMessageContaining("resolves to 169.254.169.254, a link-local address");
    assertThatThrownBy(
            () -> fetcher.fetch("acme", source("https://git.example/acme/infra.git"), null))
        .hasMessageContaining("resolves to 127.0.0.1, a loopback address");
  }

  @Test
  void anAllowedNetworkIsFetchedFromButARedirectIsNotFollowed() {
    JGitFetcher fetcher =
        new JGitFetcher(dataDir, 10, KnownGitHosts.NONE, GitAddresses.parse("127.0.0.0/8"));

    assertThatThrownBy(() -> fetcher.fetch("acme", source(repositoryUrl("127.0.0.1")), null))
        .isInstanceOf(SourceUnavailable.class);
    assertThat(toRepository).as("the allowed server was asked").isNotEmpty();
    assertThat(toElsewhere).as("its redirect was not followed").isEmpty();
  }

  @Test
  void theTransportConnectsToTheAddressesTheCheckApprovedWithoutResolvingTheNameAgain() {
    // a name no DNS resolves (RFC 6761): the check's resolver answers loopback (allowed here); a
    // transport that resolved the name again would fail (unknown host) before reaching the server,
    // and one given another answer by a rebinding DNS server would connect there instead
    String host = "git-" + UUID.randomUUID() + ".invalid";
    JGitFetcher fetcher =
        new JGitFetcher(
            dataDir,
            10,
            KnownGitHosts.NONE,
            GitAddresses.parse("127.0.0.0/8"),
            h -> List.of(InetAddress.getLoopbackAddress()));

    assertThatThrownBy(() -> fetcher.fetch("acme", source(repositoryUrl(host)), null))
        .isInstanceOf(SourceUnavailable.class);
    assertThat(toRepository).as("the checked address was connected to").isNotEmpty();
  }
}
