package dev.stagecraft.state.adapter.document;

import com.github.luben.zstd.ZstdInputStreamNoFinalizer;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * Reading back what a {@link CompressedSpool} wrote (ADR 0041): a stored document's Zstandard
 * bytes, whole or as a stream, checked against the document's known size.
 */
public final class CompressedContent {
  private CompressedContent() {}

  /**
   * The document {@code compressed} holds, of exactly {@code size} bytes.
   *
   * @throws IOException when the bytes are not one zstd frame of {@code size} bytes
   */
  public static byte[] decompress(byte[] compressed, int size) throws IOException {
    try (InputStream in = decompressing(new ByteArrayInputStream(compressed))) {
      byte[] out = in.readNBytes(size);
      if (out.length != size || in.read() != -1) {
        throw new IOException(
            "the stored content holds "
                + (out.length < size ? out.length : "more than " + size)
                + " bytes, not the document's "
                + size);
      }
      return out;
    }
  }

  /**
   * The bytes the compressed stream {@code compressed} holds; closing it closes {@code compressed}.
   */
  public static InputStream decompressing(InputStream compressed) throws IOException {
    return new ZstdInputStreamNoFinalizer(compressed);
  }
}
