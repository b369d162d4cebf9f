package dev.stagecraft.language.config;

import dev.stagecraft.language.diag.SourceRange;
import dev.stagecraft.language.syntax.Expression;
import dev.stagecraft.language.syntax.Traversal;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code resource "type" "name" { ... }}. {@code attributes} holds the resource's own arguments
 * (not meta-arguments); provisioners are in file order.
 */
public record ResourceDecl(
    String type,
    String name,
    Map<String, AttributeDecl> attributes,
    List<Traversal> dependsOn,
    Optional<Expression> count,
    Optional<Expression> forEach,
    List<ProvisionerDecl> provisioners,
    Optional<BlockDecl> connection,
    Optional<BlockDecl> lifecycle,
    SourceRange range) {

  public ResourceDecl {
    attributes = Collections.unmodifiableMap(new LinkedHashMap<>(attributes));
    dependsOn = List.copyOf(dependsOn);
    provisioners = List.copyOf(provisioners);
  }

  /** {@code type.name}, e.g. {@code stateful_provisioning.app}. */
  public String address() {
    return type + "." + name;
  }

  public Optional<AttributeDecl> attribute(String name) {
    return Optional.ofNullable(attributes.get(name));
  }
}
