package dev.stagecraft.planner.apply;

import dev.stagecraft.language.diag.Diagnostics;
import dev.stagecraft.language.diag.SourceRange;

/**
 * Checks the OpenSSH user certificates of a connection and its hops: the text {@code
 * <type>-cert-v01@openssh.com AAAA...}, together with the private key it was issued for.
 */
final class SshCertificates {
  private SshCertificates() {}

  /**
   * Checks the connection argument {@code argument}; errors point at it. Nothing to check when
   * {@code certificate} is null or inherited (not set in {@code conn}: checked where it was set).
   */
  static void check(
      Diagnostics diagnostics,
      String certificate,
      String key,
      String argument,
      String keyArguments,
      StepArguments conn) {
    if (certificate == null || !conn.has(argument)) {
      return;
    }
    report(diagnostics, certificate, key, argument, keyArguments, conn.decl(argument).range());
  }

  /**
   * Reports a {@code certificate} that is not an OpenSSH user certificate, or that has no {@code
   * key}; {@code what} names it and {@code keyArguments} the arguments that set its key.
   */
  static void report(
      Diagnostics diagnostics,
      String certificate,
      String key,
      String what,
      String keyArguments,
      SourceRange range) {
    String type = certificate.strip().split("\\s+", 2)[0];
    if (!type.endsWith("-cert-v01@openssh.com")) {
      diagnostics.error(
          "Invalid argument value",
          what
              + " must be the text of an OpenSSH user certificate, such as"
              + " \"ssh-ed25519-cert-v01@openssh.com AAAA...\" (read the *-cert.pub file that"
              + " ssh-keygen -s writes with file(\"...\")); found text starting with \""
              + (type.length() > 40 ? type.substring(0, 40) + "..." : type)
              + "\".",
          range);
    } else if (key == null) {
      diagnostics.error(
          "Missing private key",
          what
              + " needs the private key it was issued for: set "
              + keyArguments
              + " in the same connection block.",
          range);
    }
  }
}
