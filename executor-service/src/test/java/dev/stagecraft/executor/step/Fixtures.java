package dev.stagecraft.executor.step;

import dev.stagecraft.schemas.action.ActionDispatched;
import dev.stagecraft.schemas.action.ProvisionerStep;
import dev.stagecraft.schemas.action.SshConnection;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/** Small builders for dispatched actions and provisioner steps. */
final class Fixtures {
  private Fixtures() {}

  static StepBuilder localExec(String command) {
    return new StepBuilder("local-exec", command);
  }

  static StepBuilder provisioner(String type) {
    return new StepBuilder(type, null);
  }

  static ActionDispatched action(String action, List<String> sensitive, StepBuilder... steps) {
    return new ActionDispatched(
        "run-1",
        "action-1",
        "stateful_provisioning.app",
        "stateful_provisioning",
        action,
        Map.of("id", "app"),
        List.of(),
        java.util.Arrays.stream(steps).map(StepBuilder::build).toList(),
        7,
        sensitive);
  }

  static ActionDispatched action(String action, StepBuilder... steps) {
    return action(action, List.of(), steps);
  }

  /** A {@code remote-exec} step of {@code inline} commands, nothing else set. */
  static ProvisionerStep remoteExec(
      SshConnection connection, List<String> inline, int timeoutSeconds, int retries) {
    return remoteExec(connection, inline, null, timeoutSeconds, retries);
  }

  /** A {@code remote-exec} step of {@code inline} commands or uploaded {@code scripts}. */
  static ProvisionerStep remoteExec(
      SshConnection connection,
      List<String> inline,
      List<String> scripts,
      int timeoutSeconds,
      int retries) {
    return new ProvisionerStep(
        "remote-exec",
        null,
        null,
        null,
        null,
        null,
        null,
        false,
        false,
        connection,
        inline,
        scripts,
        null,
        null,
        null,
        timeoutSeconds,
        retries);
  }

  /** Records every line as "stream: line", in the order the sink received them. */
  static final class RecordingSink implements OutputSink {
    final List<String> lines = Collections.synchronizedList(new ArrayList<>());
    final List<dev.stagecraft.schemas.action.LearnedHostKey> learned =
        Collections.synchronizedList(new ArrayList<>());

    @Override
    public void hostKeyLearned(dev.stagecraft.schemas.action.LearnedHostKey key) {
      learned.add(key);
    }

    @Override
    public void line(int step, LogStream stream, String line) {
      lines.add(stream.wireName() + ": " + line);
    }

    List<String> of(LogStream stream) {
      synchronized (lines) {
        return lines.stream()
            .filter(l -> l.startsWith(stream.wireName() + ": "))
            .map(l -> l.substring(stream.wireName().length() + 2))
            .toList();
      }
    }
  }

  static final class StepBuilder {
    private final String type;
    private final String command;
    private String when;
    private String onFailure;
    private List<String> interpreter = List.of();
    private Map<String, String> environment = Map.of();
    private String workingDir;
    private boolean quiet;
    private boolean sensitive;
    private int timeoutSeconds;

    StepBuilder(String type, String command) {
      this.type = type;
      this.command = command;
    }

    StepBuilder when(String value) {
      this.when = value;
      return this;
    }

    StepBuilder onFailure(String value) {
      this.onFailure = value;
      return this;
    }

    StepBuilder interpreter(String... value) {
      this.interpreter = List.of(value);
      return this;
    }

    StepBuilder environment(Map<String, String> value) {
      this.environment = value;
      return this;
    }

    StepBuilder workingDir(String value) {
      this.workingDir = value;
      return this;
    }

    StepBuilder quiet() {
      this.quiet = true;
      return this;
    }

    StepBuilder sensitive() {
      this.sensitive = true;
      return this;
    }

    StepBuilder timeoutSeconds(int value) {
      this.timeoutSeconds = value;
      return this;
    }

    ProvisionerStep build() {
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
          null,
          null,
          null,
          null,
          null,
          null,
          timeoutSeconds,
          0);
    }
  }
}
