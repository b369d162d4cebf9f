package dev.stagecraft.state.history;

import java.util.Objects;

/**
 * A whole Terraform v4 state document stored once, byte for byte as it was pushed, apart from the
 * event that made it the workspace's state ({@link StateEvent.StateReplaced#stored}). The event
 * carries this reference, not the document: a push of any size appends a small event, and a pull of
 * a state that is still exactly the pushed document sends the stored bytes with their MD5 without
 * parsing them.
 *
 * @param digest SHA-256 (hex) of the stored bytes: the document's key within its workspace
 * @param md5 base64 MD5 of the stored bytes (HTTP {@code Content-MD5})
 * @param size the length in bytes
 * @param serial the document's {@code serial}
 * @param lineage the document's {@code lineage}
 */
public record StoredDocument(String digest, String md5, long size, long serial, String lineage) {
  public StoredDocument {
    Objects.requireNonNull(digest, "digest");
    Objects.requireNonNull(md5, "md5");
    Objects.requireNonNull(lineage, "lineage");
    if (size < 0 || serial < 0) {
      throw new IllegalArgumentException("size and serial are never negative");
    }
  }
}
