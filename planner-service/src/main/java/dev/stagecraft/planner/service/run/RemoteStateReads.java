package dev.stagecraft.planner.service.run;

import dev.stagecraft.language.config.LoadResult;
import dev.stagecraft.planner.plan.AttributeSealing;
import dev.stagecraft.planner.plan.PlanRequest;
import dev.stagecraft.planner.plan.Planner;
import dev.stagecraft.planner.plan.RemoteStateRead;
import dev.stagecraft.planner.plan.RemoteStateSource;
import dev.stagecraft.schemas.seal.SecretsKeyring;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Reads the remote states a plan needs before it is planned (docs/planning.md "Remote state", ADR
 * 0063): planning is pure, so what each {@code data "terraform_remote_state"} block reads is read
 * here, with the caller's own credential (a run's state credential, or the API token of a {@code
 * POST /plans}), and handed to the plan as values.
 */
public final class RemoteStateReads {
  private RemoteStateReads() {}

  /**
   * {@code request} with what its remote states read; unchanged when the configuration has none.
   *
   * @param credential the run's state credential or the caller's API token: the state service
   *     answers with the workspaces of that credential's tenant only (a secret: never logged)
   * @throws IllegalStateException when the state service cannot be reached
   */
  public static PlanRequest read(
      PlanRequest request,
      LoadResult parsed,
      WorkspaceStates states,
      String tenant,
      String credential) {
    return read(request, parsed, states, tenant, credential, SecretsKeyring.none());
  }

  /**
   * As {@link #read(PlanRequest, LoadResult, WorkspaceStates, String, String)}, opening with {@code
   * keyring} the sealed values of sensitive outputs a run recorded (docs/adr/0064); a value that
   * cannot be opened makes the read a refusal that says why.
   */
  public static PlanRequest read(
      PlanRequest request,
      LoadResult parsed,
      WorkspaceStates states,
      String tenant,
      String credential,
      SecretsKeyring keyring) {
    if (parsed.config().dataSources().isEmpty()) {
      return request;
    }
    Map<String, RemoteStateRead> reads = new LinkedHashMap<>();
    for (RemoteStateSource source : Planner.remoteStateSources(request, parsed)) {
      reads.put(
          source.address(),
          opened(states.remoteOutputs(tenant, source, credential), tenant, keyring));
    }
    return request.withRemoteStates(reads);
  }

  private static RemoteStateRead opened(
      RemoteStateRead read, String tenant, SecretsKeyring keyring) {
    if (!(read instanceof RemoteStateRead.Found found) || found.workspace() == null) {
      return read;
    }
    try {
      return new RemoteStateRead.Found(
          AttributeSealing.of(keyring, tenant, found.workspace()).openOutputs(found.outputs()),
          found.workspace());
    } catch (AttributeSealing.SealedStateException e) {
      return new RemoteStateRead.Refused(e.getMessage());
    }
  }
}
