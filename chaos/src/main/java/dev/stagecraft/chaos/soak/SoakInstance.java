package dev.stagecraft.chaos.soak;

import java.util.OptionalLong;

/**
 * One service process of the soak's stack, by its soak name ({@code planner-2}). Only processes
 * this harness started are ever signalled: their pids come from their {@link Process} objects.
 */
interface SoakInstance {
  String name();

  /** The pid of its current process, or empty when that process has ended. */
  OptionalLong pid();

  /** SIGKILL (a crash: no shutdown hooks) and wait until the process is gone. */
  void kill() throws Exception;

  /**
   * Starts it again if its process is not running (a supervisor may have restarted it already) and
   * returns once it answers /health.
   */
  void restart() throws Exception;

  /** Sends {@code SIGSTOP} or {@code SIGCONT} to its current process. */
  default void signal(String signal) throws Exception {
    OptionalLong pid = pid();
    if (pid.isEmpty()) {
      return;
    }
    Process kill =
        new ProcessBuilder("kill", "-" + signal, Long.toString(pid.getAsLong()))
            .redirectErrorStream(true)
            .start();
    kill.getInputStream().readAllBytes();
    kill.waitFor();
  }
}
