package dev.stagecraft.executor.adapter.ssh;

import java.io.IOException;
import org.apache.sshd.server.SshServer;
import org.apache.sshd.server.keyprovider.SimpleGeneratorHostKeyProvider;

/**
 * An in-process Apache MINA SSHD on 127.0.0.1 (a free port) that accepts only user {@code deploy}
 * with password {@code s3cret}: password authentication without a real account on the machine.
 */
final class PasswordSshServer {
  static final String USER = "deploy";
  static final String PASSWORD = "s3cret";

  private PasswordSshServer() {}

  /** Starts one; the caller stops it ({@code stop(true)}). */
  static SshServer start() throws IOException {
    SshServer server = SshServer.setUpDefaultServer();
    server.setHost("127.0.0.1");
    server.setPort(0);
    server.setKeyPairProvider(new SimpleGeneratorHostKeyProvider());
    server.setPasswordAuthenticator(
        (user, password, session) -> USER.equals(user) && PASSWORD.equals(password));
    server.start();
    return server;
  }
}
