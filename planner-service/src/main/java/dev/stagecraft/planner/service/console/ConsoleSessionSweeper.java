package dev.stagecraft.planner.service.console;

import io.micronaut.scheduling.annotation.Scheduled;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes expired console sessions every ten minutes ({@link ConsoleSessions#sweep}), so rows of
 * sessions nobody presents again do not pile up. Any planner may sweep; a delete of what another
 * planner deleted is a no-op. Runs on Micronaut's scheduled executor.
 */
@Singleton
public class ConsoleSessionSweeper {
  private static final Logger LOG = LoggerFactory.getLogger(ConsoleSessionSweeper.class);

  private final ConsoleSessions sessions;

  public ConsoleSessionSweeper(ConsoleSessions sessions) {
    this.sessions = sessions;
  }

  /** One sweep; failures are logged and the next sweep tries again. */
  @Scheduled(fixedDelay = "10m", initialDelay = "1m")
  void sweep() {
    try {
      int dropped = sessions.sweep();
      if (dropped > 0) {
        LOG.info("deleted {} expired console session(s)", dropped);
      }
    } catch (RuntimeException e) {
      LOG.warn("could not delete expired console sessions: {}", e.toString());
    }
  }
}
