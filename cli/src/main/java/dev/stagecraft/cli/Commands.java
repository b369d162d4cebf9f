package dev.stagecraft.cli;

import dev.stagecraft.cli.knownhosts.KnownHostsCommand;
import dev.stagecraft.cli.run.ApplyCommand;
import dev.stagecraft.cli.run.CancelCommand;
import dev.stagecraft.cli.run.PlanCommand;
import dev.stagecraft.cli.run.RunStartCommand;
import dev.stagecraft.cli.run.RunsCommand;
import dev.stagecraft.cli.run.ValidateCommand;
import dev.stagecraft.cli.run.VariableSetsCommand;
import dev.stagecraft.cli.run.VariablesCommand;
import dev.stagecraft.cli.run.WorkspacesCommand;
import dev.stagecraft.cli.stack.ConsoleCommand;
import dev.stagecraft.cli.stack.DownCommand;
import dev.stagecraft.cli.stack.EnvCommand;
import dev.stagecraft.cli.stack.UpCommand;
import dev.stagecraft.cli.state.ForceUnlockCommand;
import dev.stagecraft.cli.state.StateCommand;
import dev.stagecraft.cli.state.StateVersionsCommand;
import dev.stagecraft.cli.state.TaintCommand;
import java.util.Locale;
import java.util.Map;

/** The command table. Each command lives in the package of its feature. */
final class Commands {
  private Commands() {}

  static void registerAll(Map<String, Command> commands) {
    // dev stack: dev.stagecraft.cli.stack; runs: dev.stagecraft.cli.run; state:
    // dev.stagecraft.cli.state
    commands.put("up", new UpCommand());
    commands.put("down", new DownCommand());
    commands.put("env", new EnvCommand());
    commands.put("console", new ConsoleCommand());
    commands.put("validate", new ValidateCommand());
    commands.put("plan", new PlanCommand());
    commands.put("apply", new ApplyCommand(false));
    commands.put("destroy", new ApplyCommand(true));
    commands.put("state list", new StateCommand(StateCommand.Mode.LIST));
    commands.put("state show", new StateCommand(StateCommand.Mode.SHOW));
    commands.put("state pull", new StateCommand(StateCommand.Mode.PULL));
    commands.put("state versions", new StateVersionsCommand(StateVersionsCommand.Mode.VERSIONS));
    commands.put("state diff", new StateVersionsCommand(StateVersionsCommand.Mode.DIFF));
    commands.put("state rollback", new StateVersionsCommand(StateVersionsCommand.Mode.ROLLBACK));
    commands.put("state push", new StateVersionsCommand(StateVersionsCommand.Mode.PUSH));
    commands.put("force-unlock", new ForceUnlockCommand());
    commands.put("cancel", new CancelCommand());
    for (RunsCommand.Mode mode : RunsCommand.Mode.values()) { // runs list, show, logs, ...
      commands.put(group("runs", mode), new RunsCommand(mode));
    }
    commands.put("runs start", new RunStartCommand());
    for (WorkspacesCommand.Mode mode : WorkspacesCommand.Mode.values()) {
      commands.put(group("workspaces", mode), new WorkspacesCommand(mode));
    }
    for (VariablesCommand.Mode mode : VariablesCommand.Mode.values()) {
      commands.put(group("variables", mode), new VariablesCommand(mode));
    }
    for (VariableSetsCommand.Mode mode : VariableSetsCommand.Mode.values()) {
      commands.put(group("variable-sets", mode), new VariableSetsCommand(mode));
    }
    commands.put("taint", new TaintCommand(true));
    commands.put("untaint", new TaintCommand(false));
    commands.put("known-hosts list", new KnownHostsCommand(KnownHostsCommand.Mode.LIST));
    commands.put("known-hosts add", new KnownHostsCommand(KnownHostsCommand.Mode.ADD));
    commands.put("known-hosts remove", new KnownHostsCommand(KnownHostsCommand.Mode.REMOVE));
  }

  /** A group's command named after its mode: {@code runs} and {@code LOGS} is "runs logs". */
  private static String group(String group, Enum<?> mode) {
    return group + " " + mode.name().toLowerCase(Locale.ROOT);
  }
}
