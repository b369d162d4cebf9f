package dev.stagecraft.planner.service.adapter.clients;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.stagecraft.servicekit.http.InternalHttp;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The token cache answers from memory while an answer is fresh, checks again in the background in
 * its refresh window (the request still answered at once), and lets a revoked token stop working
 * within the TTL. The state service is an HTTP stand-in that counts the checks.
 */
class TokenVerifierTest {
  private HttpServer server;
  private final AtomicInteger checks = new AtomicInteger();
  private volatile int status = 200;
  private final Moving clock = new Moving();
  private final List<Runnable> background = new ArrayList<>();
  private TokenVerifier verifier;

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/internal/v1/auth/verify",
        exchange -> {
          checks.incrementAndGet();
          byte[] body =
              (status == 200 ? "{\"tenant\":\"t1\",\"role\":\"deployer\"}" : "{}")
                  .getBytes(StandardCharsets.UTF_8);
          exchange.sendResponseHeaders(status, body.length);
          exchange.getResponseBody().write(body);
          exchange.close();
        });
    server.start();
    InternalHttp http =
        new InternalHttp("http://127.0.0.1:" + server.getAddress().getPort(), "service-token");
    verifier = new TokenVerifier(http, clock, background::add);
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  @Test
  void aFreshAnswerIsServedFromMemory() {
    assertThat(verifier.verify("tok")).contains(new TokenVerifier.Principal("t1", "deployer"));
    clock.advance(TokenVerifier.REFRESH_AFTER.minusSeconds(1));
    assertThat(verifier.verify("tok")).isPresent();
    assertThat(checks).hasValue(1);
    assertThat(background).isEmpty();
  }

  @Test
  void inItsRefreshWindowAnAnswerIsServedAtOnceAndRenewedInTheBackgroundOnce() {
    verifier.verify("tok");
    clock.advance(TokenVerifier.REFRESH_AFTER.plusSeconds(1));

    assertThat(verifier.verify("tok")).isPresent();
    assertThat(verifier.verify("tok")).isPresent();
    assertThat(checks).as("the requests did not wait for a check").hasValue(1);
    assertThat(background).as("one background check per token").hasSize(1);

    background.remove(0).run();
    assertThat(checks).hasValue(2);
    // renewed: still served without a check past the first answer's TTL
    clock.advance(TokenVerifier.TTL.minus(TokenVerifier.REFRESH_AFTER));
    assertThat(verifier.verify("tok")).isPresent();
    assertThat(checks).hasValue(2);
    assertThat(background).isEmpty();
  }

  @Test
  void aTokenRevokedMeanwhileIsDroppedByTheBackgroundCheck() {
    verifier.verify("tok");
    clock.advance(TokenVerifier.REFRESH_AFTER.plusSeconds(1));
    verifier.verify("tok");
    status = 401;
    background.remove(0).run();

    assertThat(verifier.verify("tok")).isEmpty();
    assertThat(checks).as("dropped, so the next request asked again").hasValue(3);
  }

  @Test
  void aFailingStateServiceLeavesTheAnswerToRunOutAtItsTtl() {
    verifier.verify("tok");
    clock.advance(TokenVerifier.REFRESH_AFTER.plusSeconds(1));
    verifier.verify("tok");
    status = 503;
    background.remove(0).run();
    assertThat(verifier.verify("tok")).as("kept until its TTL").isPresent();

    clock.advance(TokenVerifier.TTL);
    assertThat(verifier.verify("tok")).as("past its TTL the request asks itself").isEmpty();
  }

  private static final class Moving extends Clock {
    private volatile Instant now = Instant.parse("2026-11-21T10:00:00Z");

    void advance(Duration d) {
      now = now.plus(d);
    }

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return now;
    }
  }
}
