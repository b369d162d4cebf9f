package dev.stagecraft.schemas.action;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;
import java.util.Map;

/**
 * One provisioner of an action with every expression already evaluated.
 *
 * @param type {@code local-exec} (more types later)
 * @param when {@code create} or {@code destroy}
 * @param onFailure {@code fail} or {@code continue}
 * @param command the command line, run by {@code interpreter} (default {@code /bin/sh -c})
 * @param sensitive true when {@code command} or {@code environment} contain a sensitive value; the
 *     event then still carries the value (the executor must run it) but it must never be logged
 */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public record ProvisionerStep(
    String type,
    String when,
    String onFailure,
    String command,
    List<String> interpreter,
    Map<String, String> environment,
    String workingDir,
    boolean quiet,
    boolean sensitive) {

  public ProvisionerStep {
    interpreter = interpreter == null ? List.of() : List.copyOf(interpreter);
    environment = environment == null ? Map.of() : Map.copyOf(environment);
  }
}
