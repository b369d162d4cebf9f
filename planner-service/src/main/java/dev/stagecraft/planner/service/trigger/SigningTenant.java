package dev.stagecraft.planner.service.trigger;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import java.io.IOException;
import java.util.Optional;

/**
 * The tenant whose secret must verify a trigger's signature, found before anything of the trigger
 * is decoded (ADR 0061): the {@value #HEADER} header when sent; else the CloudEvent's top-level
 * {@code tenant} member, located by a scan that builds nothing (a token stream that skips every
 * other member unread, nesting at most {@value #MAX_DEPTH} deep, and stops at the member). The
 * tenant is a claim until the signature verifies; the event decoded afterwards must name the same
 * tenant. Stateless.
 */
public final class SigningTenant {
  /** The header (HTTP or Kafka record) naming the tenant a trigger is signed for. */
  public static final String HEADER = "stagecraft-tenant";

  static final int MAX_DEPTH = 64;

  /** Longer than any tenant name: a longer claim is no tenant. */
  static final int MAX_LENGTH = 200;

  private static final JsonFactory SCANNER =
      JsonFactory.builder()
          .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(MAX_DEPTH).build())
          .build();

  private SigningTenant() {}

  /** The tenant {@code header} names, else the body's top-level {@code tenant}; empty if none. */
  public static Optional<String> of(String header, byte[] body) {
    if (header != null) {
      String tenant = header.strip();
      return tenant.isEmpty() || tenant.length() > MAX_LENGTH
          ? Optional.empty()
          : Optional.of(tenant);
    }
    try (JsonParser p = SCANNER.createParser(body)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return Optional.empty();
      }
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        boolean tenant = "tenant".equals(p.currentName());
        JsonToken value = p.nextToken();
        if (tenant) {
          return value == JsonToken.VALUE_STRING && p.getTextLength() <= MAX_LENGTH
              ? Optional.of(p.getText())
              : Optional.empty();
        }
        p.skipChildren();
      }
      return Optional.empty();
    } catch (IOException e) {
      return Optional.empty();
    }
  }
}
