package dev.stagecraft.planner.service.adapter.http;

import com.zaxxer.hikari.HikariDataSource;
import dev.stagecraft.planner.service.adapter.db.ConfigurationVersionStore;
import dev.stagecraft.planner.service.adapter.db.RunRequestKeyStore;
import dev.stagecraft.planner.service.adapter.db.RunStore;
import dev.stagecraft.planner.service.adapter.db.WorkspaceStore;
import dev.stagecraft.planner.service.run.RunCoordinator;
import dev.stagecraft.planner.service.run.intake.ApiRequestKeys;
import dev.stagecraft.planner.service.run.intake.PushedRuns;
import dev.stagecraft.planner.service.run.intake.RunIntake;
import dev.stagecraft.planner.service.run.intake.Submission;
import dev.stagecraft.planner.service.run.intake.WorkspaceConfigurations;
import dev.stagecraft.planner.service.run.intake.WorkspaceSettings;
import dev.stagecraft.planner.service.source.GitFetcher;
import dev.stagecraft.planner.service.source.PushRuns;
import dev.stagecraft.planner.service.source.WorkspaceSources;
import dev.stagecraft.planner.service.workspace.WorkspaceVariables;
import dev.stagecraft.schemas.seal.SecretsKeyring;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Value;
import jakarta.inject.Singleton;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link RunIntake} the public API and chat-ops share, wired to the planner's records:
 * workspace settings (planner.workspaces, a workspace named first is created), the API's
 * idempotency keys (planner.run_request_keys) and the description of each run (planner.runs).
 */
@Factory
public class RunIntakeBeans {
  private static final Logger LOG = LoggerFactory.getLogger(RunIntakeBeans.class);

  /**
   * A database failure behind an intake port; the API answers it as the {@link SQLException} it
   * carries (503), a trigger is retried.
   */
  public static final class RecordsUnavailable extends IllegalStateException {
    RecordsUnavailable(String message, SQLException cause) {
      super(message + ": " + cause.getMessage(), cause);
    }

    public SQLException sqlCause() {
      return (SQLException) getCause();
    }
  }

  /**
   * @param retention how long an {@code Idempotency-Key} of {@code POST /runs} is remembered
   */
  @Singleton
  RunIntake runIntake(
      RunCoordinator coordinator,
      WorkspaceStore workspaces,
      RunStore runs,
      HikariDataSource dataSource,
      SecretsKeyring secrets,
      @Value("${stagecraft.planner.idempotency-retention:24h}") Duration retention,
      ConfigurationVersionStore versions,
      WorkspaceVariables variables,
      WorkspaceSources sources,
      GitFetcher fetcher) {
    return new RunIntake(coordinator, Clock.systemUTC())
        .withWorkspaces(
            (tenant, workspace) -> {
              try {
                WorkspaceStore.Workspace w = workspaces.ensure(tenant, workspace);
                return new WorkspaceSettings(
                    w.autoApply(), w.parallelism(), w.coalescing(), w.stepTimeoutSeconds());
              } catch (SQLException e) {
                throw new RecordsUnavailable(
                    "could not read the settings of workspace " + workspace, e);
              }
            })
        .withDescriptions((runId, s) -> describe(runs, runId, s))
        .withWorkspaceInputs(
            new WorkspaceConfigurations(
                sources,
                fetcher,
                (tenant, workspace) -> latestUpload(workspaces, versions, tenant, workspace)),
            variables)
        .withApiKeys(
            apiKeys(new RunRequestKeyStore(dataSource, Clock.systemUTC())), secrets, retention);
  }

  /** The runs pushes start, through the same intake (docs/workspaces.md). */
  @Singleton
  PushRuns pushRuns(RunIntake intake) {
    return new PushedRuns(intake);
  }

  private static void describe(RunStore runs, String runId, Submission s) {
    try {
      runs.describe(s.tenant(), runId, s.workspace(), s.description(), s.variables());
    } catch (SQLException e) {
      // the run goes on; only its record lacks the message and variable names
      LOG.warn("could not record the request of run {}: {}", runId, e.toString());
    }
  }

  /** The configuration version last uploaded to the workspace, with its files. */
  private static Optional<WorkspaceConfigurations.Upload> latestUpload(
      WorkspaceStore workspaces,
      ConfigurationVersionStore versions,
      String tenant,
      String workspace) {
    try {
      Optional<String> id = workspaces.latestUpload(tenant, workspace);
      if (id.isEmpty()) {
        return Optional.empty();
      }
      return versions
          .find(tenant, id.get())
          .map(
              v ->
                  new WorkspaceConfigurations.Upload(
                      v.id(), v.content().files(), v.content().supportFiles()));
    } catch (SQLException e) {
      throw new RecordsUnavailable(
          "could not read the configuration last uploaded to workspace " + workspace, e);
    }
  }

  private static ApiRequestKeys apiKeys(RunRequestKeyStore store) {
    return new ApiRequestKeys() {
      @Override
      public Optional<Recorded> find(String tenant, String storedKey) {
        return store
            .findApiKey(tenant, storedKey)
            .map(k -> new Recorded(k.runId(), k.requestDigest(), k.recordedAt()));
      }

      @Override
      public boolean record(
          String tenant,
          String storedKey,
          String runId,
          String workspace,
          String requestDigest,
          Instant expiredBefore) {
        return store.recordApiKey(
            tenant, storedKey, runId, workspace, requestDigest, expiredBefore);
      }
    };
  }
}
