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
 * @param connection for {@code remote-exec} and {@code file}: where to connect
 * @param inline {@code remote-exec}: commands run in one remote shell session
 * @param scripts {@code remote-exec}: the contents of {@code script}/{@code scripts} (read by the
 *     planner), uploaded and run in order
 * @param destination {@code file}: remote path
 * @param content {@code file}: text to write ({@code content}, or a single {@code source} file)
 * @param files {@code file} with a {@code source} directory: relative path → base64 content
 * @param timeoutSeconds per-step limit (Stagecraft's {@code timeout}); 0 = none
 * @param retries how often a step marked safe to retry is retried on transient failures
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
    boolean sensitive,
    SshConnection connection,
    List<String> inline,
    List<String> scripts,
    String destination,
    String content,
    Map<String, String> files,
    int timeoutSeconds,
    int retries) {

  /** A {@code local-exec} step (no connection, no remote fields). */
  public ProvisionerStep(
      String type,
      String when,
      String onFailure,
      String command,
      List<String> interpreter,
      Map<String, String> environment,
      String workingDir,
      boolean quiet,
      boolean sensitive) {
    this(
        type,
        when,
        onFailure,
        command,
        interpreter,
        environment,
        workingDir,
        quiet,
        sensitive,
        null,
        null,
        null,
        null,
        null,
        null,
        0,
        0);
  }

  /** The same step with another connection (the planner attaches known host keys so). */
  public ProvisionerStep withConnection(SshConnection other) {
    return new ProvisionerStep(
        type,
        when,
        onFailure,
        command,
        interpreter,
        environment,
        workingDir,
        quiet,
        sensitive,
        other,
        inline,
        scripts,
        destination,
        content,
        files,
        timeoutSeconds,
        retries);
  }

  /** The same step with another timeout ({@code timeoutSeconds}). */
  public ProvisionerStep withTimeoutSeconds(int seconds) {
    return new ProvisionerStep(
        type,
        when,
        onFailure,
        command,
        interpreter,
        environment,
        workingDir,
        quiet,
        sensitive,
        connection,
        inline,
        scripts,
        destination,
        content,
        files,
        seconds,
        retries);
  }

  public ProvisionerStep {
    interpreter = interpreter == null ? List.of() : List.copyOf(interpreter);
    environment = environment == null ? Map.of() : Map.copyOf(environment);
    inline = inline == null ? List.of() : List.copyOf(inline);
    scripts = scripts == null ? List.of() : List.copyOf(scripts);
    files = files == null ? Map.of() : Map.copyOf(files);
  }
}
