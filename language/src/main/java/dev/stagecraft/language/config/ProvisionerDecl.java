package dev.stagecraft.language.config;

import dev.stagecraft.language.diag.SourceRange;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * {@code provisioner "local-exec" { ... }}. {@code attributes} excludes {@code when} and {@code
 * on_failure}, which are decoded into {@code when} ("create"|"destroy") and {@code onFailure}
 * ("fail"|"continue").
 */
public record ProvisionerDecl(
    String type,
    Map<String, AttributeDecl> attributes,
    Optional<BlockDecl> connection,
    String when,
    String onFailure,
    SourceRange range) {
  public ProvisionerDecl {
    attributes = Collections.unmodifiableMap(new LinkedHashMap<>(attributes));
  }

  public boolean runsAtDestroy() {
    return "destroy".equals(when);
  }

  public boolean continuesOnFailure() {
    return "continue".equals(onFailure);
  }
}
