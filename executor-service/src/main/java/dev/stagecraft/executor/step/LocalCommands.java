package dev.stagecraft.executor.step;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Port: where the commands of {@code local-exec} steps run. The executor's implementation starts
 * each action's commands in a sandbox of their own (a private directory, an unprivileged user,
 * namespaces, limits; {@code dev.stagecraft.executor.sandbox}); an installation that opted out runs
 * them as the executor itself.
 *
 * <p>Concurrency: {@link #open} may be called from many action threads at once; a {@link Session}
 * is used by the one thread that runs its action.
 */
public interface LocalCommands {

  /**
   * Opens what the {@code local-exec} steps of one action share: their working directory, their
   * {@code /tmp}, their user. The runner opens it before the action's first {@code local-exec} step
   * and closes it when the action ends, whatever its outcome.
   *
   * @throws Unavailable when commands cannot run here (no sandbox and no opt-out): the step fails
   *     with the exception's message and nothing runs
   */
  Session open(ActionIdentity action) throws Unavailable;

  /** Which action a session is for: its run and id (for logs only). */
  record ActionIdentity(String runId, String actionId) {}

  /** The commands of one action. Closing it ends whatever they left running and removes it all. */
  interface Session extends AutoCloseable {

    /**
     * Starts one command with standard input at end of file.
     *
     * @param argv the interpreter and the command
     * @param environment the provisioner's own {@code environment}, added to the session's base
     *     environment (never the executor's own)
     * @param workingDir the provisioner's {@code working_dir}, {@code null} or blank for the
     *     session's working directory
     * @throws InvalidStep when the step asks for something the session refuses (a working directory
     *     that does not exist there); nothing was started
     * @throws IOException when the command could not be started
     */
    Process start(List<String> argv, Map<String, String> environment, String workingDir)
        throws IOException;

    /**
     * After a command ended: the limit of the session it ran into, as a sentence that names the
     * limit and its setting ("exceeded the memory limit of 512 MiB ..."), or empty.
     */
    Optional<String> exceededLimit();

    @Override
    void close();
  }

  /** Commands cannot run here; the message says why and what the operator can do. */
  final class Unavailable extends Exception {
    private static final long serialVersionUID = 1L;

    public Unavailable(String message) {
      super(message);
    }
  }

  /** A step's arguments that the session refuses; the message says which and why. */
  final class InvalidStep extends IOException {
    private static final long serialVersionUID = 1L;

    public InvalidStep(String message) {
      super(message);
    }
  }
}
