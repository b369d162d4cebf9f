package dev.stagecraft.language.config;

import dev.stagecraft.language.diag.SourceRange;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * A {@code data} block of a supported data source: today only {@code terraform_remote_state}
 * (docs/planning.md "Remote state"), whose {@code backend} is one of {@link
 * RemoteStateBlocks#BACKENDS}.
 *
 * @param type the data source type ({@code terraform_remote_state})
 * @param name the block's name
 * @param backend the literal {@code backend} argument
 * @param attributes the other arguments ({@code config}, {@code workspace}, {@code defaults}),
 *     unevaluated
 * @param range the whole block, where errors about the block as a whole are reported
 */
public record DataDecl(
    String type,
    String name,
    String backend,
    Map<String, AttributeDecl> attributes,
    SourceRange range) {

  public DataDecl {
    attributes = Collections.unmodifiableMap(new LinkedHashMap<>(attributes));
  }

  /** {@code data.TYPE.NAME}: how expressions refer to it. */
  public String address() {
    return "data." + type + "." + name;
  }

  public Optional<AttributeDecl> attribute(String name) {
    return Optional.ofNullable(attributes.get(name));
  }
}
