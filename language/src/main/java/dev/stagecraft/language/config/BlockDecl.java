package dev.stagecraft.language.config;

import dev.stagecraft.language.diag.SourceRange;
import dev.stagecraft.language.syntax.Body;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** A block kept in raw form (attributes as unevaluated expressions, nested blocks in order). */
public record BlockDecl(
    String type,
    List<String> labels,
    Map<String, AttributeDecl> attributes,
    List<BlockDecl> blocks,
    SourceRange range) {

  public BlockDecl {
    labels = List.copyOf(labels);
    attributes = Collections.unmodifiableMap(new LinkedHashMap<>(attributes));
    blocks = List.copyOf(blocks);
  }

  public static BlockDecl of(Body.Block b) {
    return new BlockDecl(
        b.type(),
        b.labels(),
        attributes(b.body()),
        b.body().blocks().stream().map(BlockDecl::of).toList(),
        b.range());
  }

  static Map<String, AttributeDecl> attributes(Body body) {
    Map<String, AttributeDecl> m = new LinkedHashMap<>();
    for (Body.Attribute a : body.attributes()) {
      m.putIfAbsent(a.name(), new AttributeDecl(a.name(), a.expr(), a.range()));
    }
    return m;
  }

  public Optional<AttributeDecl> attribute(String name) {
    return Optional.ofNullable(attributes.get(name));
  }

  public List<BlockDecl> blocks(String type) {
    return blocks.stream().filter(b -> b.type().equals(type)).toList();
  }
}
