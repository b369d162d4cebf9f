package dev.stagecraft.language.eval.functions;

import static dev.stagecraft.language.eval.functions.Args.b64;
import static dev.stagecraft.language.eval.functions.Args.digest;
import static dev.stagecraft.language.eval.functions.Args.hex;
import static dev.stagecraft.language.eval.functions.Args.readFile;
import static dev.stagecraft.language.eval.functions.Args.str;
import static dev.stagecraft.language.eval.functions.Args.utf8;

import dev.stagecraft.language.eval.EvalContext;
import dev.stagecraft.language.eval.FunctionDef;
import dev.stagecraft.language.eval.FunctionException;
import dev.stagecraft.language.eval.Functions;
import dev.stagecraft.language.eval.Value;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** Terraform's hash and crypto functions. */
final class HashFunctions {
  private HashFunctions() {}

  static Functions register(Functions f) {
    return f.with(FunctionDef.of("md5", 1, 1, (a, c) -> Value.string(hex("MD5", utf8(str(a, 0))))))
        .with(FunctionDef.of("sha1", 1, 1, (a, c) -> Value.string(hex("SHA-1", utf8(str(a, 0))))))
        .with(
            FunctionDef.of("sha256", 1, 1, (a, c) -> Value.string(hex("SHA-256", utf8(str(a, 0))))))
        .with(
            FunctionDef.of("sha512", 1, 1, (a, c) -> Value.string(hex("SHA-512", utf8(str(a, 0))))))
        .with(
            FunctionDef.of(
                "base64sha256",
                1,
                1,
                (a, c) -> Value.string(b64(digest("SHA-256", utf8(str(a, 0)))))))
        .with(
            FunctionDef.of(
                "base64sha512",
                1,
                1,
                (a, c) -> Value.string(b64(digest("SHA-512", utf8(str(a, 0)))))))
        .with(
            FunctionDef.of(
                "filemd5", 1, 1, (a, c) -> Value.string(hex("MD5", readFile(a, c, true)))))
        .with(
            FunctionDef.of(
                "filesha1", 1, 1, (a, c) -> Value.string(hex("SHA-1", readFile(a, c, true)))))
        .with(
            FunctionDef.of(
                "filesha256", 1, 1, (a, c) -> Value.string(hex("SHA-256", readFile(a, c, true)))))
        .with(
            FunctionDef.of(
                "filesha512", 1, 1, (a, c) -> Value.string(hex("SHA-512", readFile(a, c, false)))))
        .with(
            FunctionDef.of(
                "filebase64sha256",
                1,
                1,
                (a, c) -> Value.string(b64(digest("SHA-256", readFile(a, c, false))))))
        .with(
            FunctionDef.of(
                "filebase64sha512",
                1,
                1,
                (a, c) -> Value.string(b64(digest("SHA-512", readFile(a, c, false))))))
        .with(
            FunctionDef.of("uuid", 0, 0, (a, c) -> Value.string(c.uuids().get().toString()))
                .asImpure())
        .with(FunctionDef.of("uuidv5", 2, 2, HashFunctions::uuidv5));
  }

  private static final Map<String, UUID> UUID_NAMESPACES =
      Map.of(
          "dns", UUID.fromString("6ba7b810-9dad-11d1-80b4-00c04fd430c8"),
          "url", UUID.fromString("6ba7b811-9dad-11d1-80b4-00c04fd430c8"),
          "oid", UUID.fromString("6ba7b812-9dad-11d1-80b4-00c04fd430c8"),
          "x500", UUID.fromString("6ba7b814-9dad-11d1-80b4-00c04fd430c8"));

  private static Value uuidv5(List<Value> a, EvalContext c) {
    String ns = str(a, 0);
    UUID namespace = UUID_NAMESPACES.get(ns);
    if (namespace == null) {
      try {
        namespace = UUID.fromString(ns);
      } catch (IllegalArgumentException e) {
        throw new FunctionException(
            0,
            "namespace must be \"dns\", \"url\", \"oid\", \"x500\" or a UUID, not \"" + ns + "\".");
      }
    }
    ByteBuffer bb = ByteBuffer.allocate(16);
    bb.putLong(namespace.getMostSignificantBits()).putLong(namespace.getLeastSignificantBits());
    byte[] name = utf8(str(a, 1));
    byte[] in = new byte[16 + name.length];
    System.arraycopy(bb.array(), 0, in, 0, 16);
    System.arraycopy(name, 0, in, 16, name.length);
    byte[] h = digest("SHA-1", in);
    h[6] = (byte) ((h[6] & 0x0f) | 0x50);
    h[8] = (byte) ((h[8] & 0x3f) | 0x80);
    ByteBuffer r = ByteBuffer.wrap(h, 0, 16);
    return Value.string(new UUID(r.getLong(), r.getLong()).toString());
  }
}
