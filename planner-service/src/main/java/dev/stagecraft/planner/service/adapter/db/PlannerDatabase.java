package dev.stagecraft.planner.service.adapter.db;

import com.zaxxer.hikari.HikariDataSource;
import dev.stagecraft.planner.service.adapter.PlannerSettings;
import dev.stagecraft.schemas.seal.SecretsKeyring;
import dev.stagecraft.servicekit.db.Databases;
import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Context;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Value;
import jakarta.inject.Singleton;
import java.sql.SQLException;
import java.time.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The planner's database (schema {@code planner}, Flyway migrations in {@code db/migration}) and
 * its stores. The pool is created and migrated eagerly, so a wrong database fails the start. The
 * run store marks the runs this instance abandoned in its previous life as errored before the
 * coordinator (which depends on it) starts any run.
 */
@Factory
public class PlannerDatabase {
  private static final Logger LOG = LoggerFactory.getLogger(PlannerDatabase.class);

  @Context
  @Bean(preDestroy = "close")
  HikariDataSource plannerDataSource(
      @Value("${stagecraft.db.url}") String url,
      @Value("${stagecraft.db.user}") String user,
      @Value("${stagecraft.db.password}") String password) {
    return Databases.migrateAndPool(url, user, password, "planner", "classpath:db/migration");
  }

  @Singleton
  RunStore runStore(HikariDataSource dataSource, PlannerSettings settings, SecretsKeyring secrets)
      throws SQLException {
    RunStore store = new RunStore(dataSource, Clock.systemUTC(), settings.getInstanceId(), secrets);
    int abandoned = store.failAbandoned();
    if (abandoned > 0) {
      LOG.warn(
          "{} run(s) were active when planner instance {} stopped; marked errored",
          abandoned,
          settings.getInstanceId());
    }
    return store;
  }

  @Singleton
  WorkspaceStore workspaceStore(HikariDataSource dataSource) {
    return new WorkspaceStore(dataSource, Clock.systemUTC());
  }

  @Singleton
  ConfigurationVersionStore configurationVersionStore(
      HikariDataSource dataSource, dev.stagecraft.schemas.seal.SecretsKeyring keyring) {
    // sealed at rest when a key is configured (docs/adr/0024)
    return new ConfigurationVersionStore(dataSource, Clock.systemUTC(), keyring);
  }
}
