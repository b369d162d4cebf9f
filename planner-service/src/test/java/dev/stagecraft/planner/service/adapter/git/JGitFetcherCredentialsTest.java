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
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An HTTPS token reaches the server as basic-auth credentials, and a server that refuses them is
 * reported as such without the token in the message: a loopback HTTP server that answers every
 * request 401.
 */
class JGitFetcherCredentialsTest {
  private static final String TOKEN = "glpat-Zq9xW-Tok3n";

  @TempDir Path dataDir;
  HttpServer server;
  final List<String> authorizations = new CopyOnWriteArrayList<>();
  String url;

  @BeforeEach
  void aServerThatRefusesEveryone() throws Exception {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/",
        exchange -> {
          String auth = exchange.getRequestHeaders().getFirst("Authorization");
          authorizations.add(auth == null ? "" : auth);
          exchange.getResponseHeaders().add("WWW-Authenticate", "Basic realm=\"git\"");
          exchange.sendResponseHeaders(401, -1);
          exchange.close();
        });
    server.start();
    url = "http://127.0.0.1:" + server.getAddress().getPort() + "/acme/infra.git";
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  @Test
  void aRefusedTokenIsReportedWithoutTheToken() {
    GitSource source =
        new GitSource(url, "main", "", new GitCredentials.HttpsToken("deploy", TOKEN), false);

    assertThatThrownBy(
            () ->
                new JGitFetcher(dataDir, 10, KnownGitHosts.NONE, GitAddresses.parse("127.0.0.0/8"))
                    .fetch("acme", source, null))
        .isInstanceOf(SourceUnavailable.class)
        .hasMessageContaining("the credentials were refused by " + url)
        .hasMessageContaining("check the token")
        .hasMessageNotContaining(TOKEN);
    String basic =
        "Basic "
            + Base64.getEncoder()
                .encodeToString(("deploy:" + TOKEN).getBytes(StandardCharsets.UTF_8));
    assertThat(authorizations).contains(basic);
  }

  @Test
  void aPrivateRepositoryWithoutCredentialsAsksForThem() {
    GitSource source = new GitSource(url, "main", "", new GitCredentials.None(), false);

    assertThatThrownBy(
            () ->
                new JGitFetcher(dataDir, 10, KnownGitHosts.NONE, GitAddresses.parse("127.0.0.0/8"))
                    .fetch("acme", source, null))
        .isInstanceOf(SourceUnavailable.class)
        .hasMessageContaining("repository " + url + " asks for credentials")
        .hasMessageContaining("give the source a token");
    assertThat(authorizations).containsOnly("");
  }
}
