package dev.stagecraft.language.syntax;

import dev.stagecraft.language.diag.SourceRange;
import java.util.List;
import java.util.Optional;

/** The contents of a file or block: attributes and blocks in source order. */
public record Body(List<BodyItem> items, SourceRange range) {
  public Body {
    items = List.copyOf(items);
  }

  /** An attribute or a block. */
  public sealed interface BodyItem permits Attribute, Block {
    SourceRange range();
  }

  /** {@code name = expr}. */
  public record Attribute(String name, Expression expr, SourceRange nameRange, SourceRange range)
      implements BodyItem {}

  /** {@code type "label" label2 { body }}. */
  public record Block(
      String type,
      List<String> labels,
      List<SourceRange> labelRanges,
      Body body,
      SourceRange typeRange,
      SourceRange range)
      implements BodyItem {
    public Block {
      labels = List.copyOf(labels);
      labelRanges = List.copyOf(labelRanges);
    }
  }

  public List<Attribute> attributes() {
    return items.stream().filter(Attribute.class::isInstance).map(Attribute.class::cast).toList();
  }

  public List<Block> blocks() {
    return items.stream().filter(Block.class::isInstance).map(Block.class::cast).toList();
  }

  public Optional<Attribute> attribute(String name) {
    return attributes().stream().filter(a -> a.name().equals(name)).findFirst();
  }

  public List<Block> blocks(String type) {
    return blocks().stream().filter(b -> b.type().equals(type)).toList();
  }
}
