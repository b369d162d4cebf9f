package dev.stagecraft.cli.stack;

import dev.stagecraft.cli.CliContext;
import dev.stagecraft.devstack.DevStackLayout;
import dev.stagecraft.devstack.DevStackPointer;
import dev.stagecraft.devstack.StackFiles;
import java.net.URI;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Finds the Stagecraft server every command talks to: {@code STAGECRAFT_ADDR} and {@code
 * STAGECRAFT_TOKEN} first, else the dev stack started by {@code stagecraft up} (its pointer {@code
 * $STAGECRAFT_HOME/dev-stack.json}, {@code STAGECRAFT_HOME} defaulting to {@code ~/.stagecraft}).
 *
 * <p>The dev stack's token is only ever sent to the dev stack's address: with {@code
 * STAGECRAFT_ADDR} set to another server, {@code STAGECRAFT_TOKEN} must be set too.
 */
public final class StackLocator {
  static final String NOT_FOUND =
      "No Stagecraft server found. Start the dev stack with `./stagecraft up -detach`, or set"
          + " STAGECRAFT_ADDR and STAGECRAFT_TOKEN.";

  private StackLocator() {}

  /** The address (planner URL, no trailing slash) and API token to use. */
  public record ServerTarget(URI address, String token) {}

  /** A command needs a server and none is configured; the message says how to get one. */
  public static final class NoServerException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    NoServerException(String message) {
      super(message);
    }
  }

  /**
   * @throws NoServerException when neither the environment nor a dev stack names a server
   */
  public static ServerTarget locate(CliContext context) {
    String addr = blankToNull(context.env("STAGECRAFT_ADDR"));
    String token = blankToNull(context.env("STAGECRAFT_TOKEN"));
    Optional<DevStackPointer> pointer = pointer(context);
    if (addr == null) {
      if (pointer.isEmpty() || pointer.get().planner() == null) {
        throw new NoServerException(NOT_FOUND);
      }
      addr = pointer.get().planner();
      if (token == null) {
        token = pointer.get().token();
      }
    } else if (token == null && pointer.isPresent() && sameServer(addr, pointer.get().planner())) {
      token = pointer.get().token();
    }
    if (token == null) {
      throw new NoServerException(
          "No API token for "
              + addr
              + ". Set STAGECRAFT_TOKEN (for the dev stack: eval \"$(./stagecraft env)\").");
    }
    return new ServerTarget(URI.create(stripSlash(addr)), token);
  }

  /** The dev stack pointer, if a dev stack was started on this machine. */
  public static Optional<DevStackPointer> pointer(CliContext context) {
    return StackFiles.readQuietly(
        DevStackLayout.pointerFile(stagecraftHome(context)), DevStackPointer.class);
  }

  /** {@code $STAGECRAFT_HOME}, default {@code ~/.stagecraft}. */
  public static Path stagecraftHome(CliContext context) {
    return DevStackLayout.stagecraftHome(context.env());
  }

  private static boolean sameServer(String a, String b) {
    return b != null && stripSlash(a).equals(stripSlash(b));
  }

  private static String stripSlash(String url) {
    return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
  }

  private static String blankToNull(String s) {
    return s == null || s.isBlank() ? null : s.strip();
  }
}
