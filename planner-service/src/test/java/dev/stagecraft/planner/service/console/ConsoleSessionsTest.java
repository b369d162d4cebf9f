package dev.stagecraft.planner.service.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.schemas.seal.SecretsKeyring;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

class ConsoleSessionsTest {
  final Map<String, ConsoleSessions.Stored> rows = new ConcurrentHashMap<>();
  final ConsoleSessions.Store store =
      new ConsoleSessions.Store() {
        @Override
        public void save(ConsoleSessions.Stored session) {
          rows.put(session.idHash(), session);
        }

        @Override
        public Optional<ConsoleSessions.Stored> find(String idHash) {
          return Optional.ofNullable(rows.get(idHash));
        }

        @Override
        public void delete(String idHash) {
          rows.remove(idHash);
        }

        @Override
        public int deleteExpired(Instant now) {
          int before = rows.size();
          rows.values().removeIf(s -> !s.expiresAt().isAfter(now));
          return before - rows.size();
        }
      };
  final SecretsKeyring keyring = SecretsKeyring.parse(SecretsKeyring.generateEntry("k1"));
  final Instant t0 = Instant.parse("2026-12-06T10:00:00Z");

  ConsoleSessions at(Instant now) {
    return new ConsoleSessions(store, keyring, Clock.fixed(now, ZoneOffset.UTC));
  }

  @Test
  void storesOnlyTheHashOfTheSessionIdAndTheTokenSealed() {
    var started = at(t0).start("acme", "deployer", "sc_secret_token");
    ConsoleSessions.Stored row = rows.values().iterator().next();
    assertThat(row.idHash())
        .isEqualTo(ConsoleSessions.hash(started.id()))
        .isNotEqualTo(started.id());
    assertThat(row.toString()).doesNotContain(started.id()).doesNotContain("sc_secret_token");
    assertThat(row.expiresAt()).isEqualTo(t0.plus(ConsoleSessions.LIFETIME));
  }

  @Test
  void findsTheSessionByItsIdWithTheTokenItActsWith() {
    var started = at(t0).start("acme", "reader", "sc_token");
    var found = at(t0.plusSeconds(60)).find(started.id()).orElseThrow();
    assertThat(found.tenant()).isEqualTo("acme");
    assertThat(found.role()).isEqualTo("reader");
    assertThat(found.token()).isEqualTo("sc_token");
    assertThat(at(t0).find("not-a-session")).isEmpty();
    assertThat(at(t0).find(null)).isEmpty();
  }

  @Test
  void anExpiredSessionIsGoneAndDeleted() {
    var started = at(t0).start("acme", "admin", "sc_token");
    Instant later = t0.plus(ConsoleSessions.LIFETIME).plus(Duration.ofSeconds(1));
    assertThat(at(later).find(started.id())).isEmpty();
    assertThat(rows).isEmpty();
  }

  @Test
  void signOutEndsTheSession() {
    var sessions = at(t0);
    var started = sessions.start("acme", "admin", "sc_token");
    sessions.end(started.session());
    assertThat(sessions.find(started.id())).isEmpty();
  }

  @Test
  void aSessionSealedUnderAnotherKeyringCannotBeOpened() {
    var started = at(t0).start("acme", "admin", "sc_token");
    var other =
        new ConsoleSessions(
            store,
            SecretsKeyring.parse(SecretsKeyring.generateEntry("k2")),
            Clock.fixed(t0, ZoneOffset.UTC));
    assertThat(other.find(started.id())).isEmpty();
  }

  @Test
  void csrfMatchesOnlyTheSessionsOwnToken() {
    var session = at(t0).start("acme", "admin", "sc_token").session();
    assertThat(session.csrfMatches(session.csrf())).isTrue();
    assertThat(session.csrfMatches(null)).isFalse();
    assertThat(session.csrfMatches("")).isFalse();
    assertThat(session.csrfMatches(session.csrf() + "x")).isFalse();
    var another = at(t0).start("acme", "admin", "sc_token").session();
    assertThat(session.csrfMatches(another.csrf())).isFalse();
  }

  @Test
  void sessionsCannotStartWithoutAKeyringThatSeals() {
    assertThat(new ConsoleSessions(store, SecretsKeyring.none(), Clock.systemUTC()).available())
        .isFalse();
    assertThat(at(t0).available()).isTrue();
  }

  @Test
  void theSweeperDeletesExpiredSessionsOnly() {
    at(t0).start("acme", "old", "sc_old_token");
    Instant later = t0.plus(ConsoleSessions.LIFETIME).plusSeconds(1);
    var fresh = at(later).start("acme", "new", "sc_new_token");

    new ConsoleSessionSweeper(at(later)).sweep();

    assertThat(rows.values())
        .singleElement()
        .satisfies(r -> assertThat(r.idHash()).isEqualTo(ConsoleSessions.hash(fresh.id())));
  }
}
