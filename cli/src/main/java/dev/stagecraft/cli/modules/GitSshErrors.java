package dev.stagecraft.cli.modules;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.eclipse.jgit.transport.URIish;

/** Says what went wrong with a fetch over ssh, and how to fix it, in the user's terms. */
final class GitSshErrors {
  /** The keys JGit (as OpenSSH) tries when the ssh config names none for the host. */
  static final List<String> DEFAULT_KEYS = List.of("id_rsa", "id_ecdsa", "id_ed25519");

  private GitSshErrors() {}

  /**
   * Why a fetch from {@code url} over {@code ssh} failed with {@code e}: a refused host key or a
   * refused login; null when it failed otherwise (the caller reports the exception itself).
   */
  static String explain(GitSsh ssh, String url, Exception e) {
    if (ssh.refusal() != null) {
      return ssh.refusal() + ".";
    }
    if (!authentication(e)) {
      return null;
    }
    String login = url;
    try {
      URIish uri = new URIish(url);
      login =
          (uri.getUser() == null ? "" : uri.getUser() + "@")
              + uri.getHost()
              + (uri.getPort() > 0 ? ":" + uri.getPort() : "");
    } catch (URISyntaxException ignored) {
      // the URL as written
    }
    Path dir = ssh.sshDir();
    List<String> found = new ArrayList<>();
    for (String key : DEFAULT_KEYS) {
      if (Files.isRegularFile(dir.resolve(key))) {
        found.add(key + (encrypted(dir.resolve(key)) ? " (has a passphrase: not used)" : ""));
      }
    }
    return "the ssh server refused to log in "
        + login
        + " with the keys of "
        + dir
        + " ("
        + (found.isEmpty()
            ? "it holds none of " + String.join(", ", DEFAULT_KEYS)
            : "tried: " + String.join(", ", found))
        + ", and any IdentityFile its config names for the host; keys with a passphrase and"
        + " ssh-agent are not used). Add the public key (e.g. "
        + dir.resolve(
            found.isEmpty() ? "id_ed25519.pub" : found.getLast().split(" ", -1)[0] + ".pub")
        + ") to the server's authorized keys or the repository's deploy keys, check the user in"
        + " the URL, or name the key with IdentityFile in "
        + dir.resolve("config")
        + " (the directory is $"
        + GitSsh.SSH_DIR_VARIABLE
        + " when set, else ~/.ssh).";
  }

  /** Whether the private key file is protected by a passphrase (OpenSSH or PEM format). */
  static boolean encrypted(Path key) {
    try {
      String text = Files.readString(key);
      if (text.contains("ENCRYPTED")) {
        return true; // PEM: Proc-Type: 4,ENCRYPTED or BEGIN ENCRYPTED PRIVATE KEY
      }
      String begin = "-----BEGIN OPENSSH PRIVATE KEY-----";
      int from = text.indexOf(begin);
      int to = text.indexOf("-----END", from + 1);
      if (from < 0 || to < 0) {
        return false;
      }
      byte[] body =
          Base64.getMimeDecoder().decode(text.substring(from + begin.length(), to).strip());
      // "openssh-key-v1\0", then the cipher name as an ssh string: "none" when not encrypted
      ByteBuffer in = ByteBuffer.wrap(body);
      in.position("openssh-key-v1".length() + 1);
      byte[] cipher = new byte[in.getInt()];
      in.get(cipher);
      return !new String(cipher, StandardCharsets.US_ASCII).equals("none");
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  private static boolean authentication(Throwable e) {
    Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    for (Throwable t = e; t != null && seen.add(t); t = t.getCause()) {
      String m = t.getMessage() == null ? "" : t.getMessage().toLowerCase(Locale.ROOT);
      if (m.contains("authentication") || m.contains("cannot log in") || m.contains("auth fail")) {
        return true;
      }
    }
    return false;
  }
}
