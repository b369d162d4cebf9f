package dev.stagecraft.planner.service.adapter.http;

import static dev.stagecraft.planner.service.adapter.http.ApiProblems.problem;

import dev.stagecraft.planner.service.adapter.clients.TokenVerifier.Principal;
import dev.stagecraft.planner.service.adapter.db.VariableSetStore;
import dev.stagecraft.planner.service.adapter.db.VariableSetStore.VariableSet;
import dev.stagecraft.planner.service.adapter.db.VariableStore;
import dev.stagecraft.planner.service.adapter.db.VariableStore.Change;
import dev.stagecraft.planner.service.adapter.db.VariableStore.Listed;
import dev.stagecraft.planner.service.adapter.db.VariableStore.Listing;
import dev.stagecraft.planner.service.adapter.db.VariableStore.Owner;
import dev.stagecraft.planner.service.adapter.db.VariableStore.OwnerKind;
import dev.stagecraft.planner.service.adapter.db.WorkspaceStore;
import dev.stagecraft.planner.service.adapter.http.Access.Role;
import dev.stagecraft.planner.service.workspace.StoredVariable;
import dev.stagecraft.planner.service.workspace.VariableCategory;
import dev.stagecraft.planner.service.workspace.VariableRefused;
import dev.stagecraft.planner.service.workspace.VariableRules;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What the variables API answers (docs/workspaces.md), for a caller already authenticated: the
 * workspace variables ({@code /api/v1/workspaces/{ws}/variables...}) and the variable sets ({@code
 * /api/v1/variable-sets...}). The controllers only authenticate and route here; tests call it
 * directly.
 *
 * <p>Roles: reads need any role (a reader sees no values at all), workspace variables' changes a
 * deployer, every change of a set an admin. Everything is looked up in the caller's tenant, so
 * another tenant's workspace or set is 404. A sensitive value is never answered. Thread-safe (no
 * state of its own).
 */
public final class VariablesApi {
  private final VariableStore variables;
  private final VariableSetStore sets;
  private final WorkspaceStore workspaces;

  public VariablesApi(VariableStore variables, VariableSetStore sets, WorkspaceStore workspaces) {
    this.variables = variables;
    this.sets = sets;
    this.workspaces = workspaces;
  }

  /** A request's work, which may be refused ({@link VariableRefused}). */
  @FunctionalInterface
  private interface Answer {
    HttpResponse<?> get() throws SQLException;
  }

  // ---- workspace variables

  /**
   * {@code {"workspace","version","variables":[...]}}; 404 when the tenant has no such workspace.
   */
  public HttpResponse<?> listWorkspace(Principal caller, String ws) throws SQLException {
    return answer(
        caller,
        Role.READER,
        "read variables",
        () -> {
          if (!workspaceExists(caller, ws)) {
            return noWorkspace(ws);
          }
          Listing listing = variables.list(workspace(caller, ws));
          Map<String, Object> out = new LinkedHashMap<>();
          out.put("workspace", ws);
          out.put("version", listing.version());
          out.put("variables", views(listing, showValues(caller)));
          return HttpResponse.ok(out);
        });
  }

  /** Sets a workspace variable (creating the workspace with the defaults): the variable's view. */
  public HttpResponse<?> putWorkspace(Principal caller, String ws, String key, VariableBody body)
      throws SQLException {
    return answer(
        caller,
        Role.DEPLOYER,
        "set workspace variables",
        () -> {
          if (!ApiProblems.WORKSPACE.matcher(ws).matches()) {
            return invalidWorkspace(ws);
          }
          StoredVariable variable = variable(key, body);
          workspaces.ensure(caller.tenant(), ws);
          return put(caller, workspace(caller, ws), variable);
        });
  }

  /** 204; 404 when the workspace has no such variable. */
  public HttpResponse<?> deleteWorkspace(Principal caller, String ws, String key, String category)
      throws SQLException {
    return answer(
        caller,
        Role.DEPLOYER,
        "unset workspace variables",
        () -> {
          if (!workspaceExists(caller, ws)) {
            return noWorkspace(ws);
          }
          return unset(caller, workspace(caller, ws), key, category);
        });
  }

  /** {@code {"changes":[...]}} newest first. */
  public HttpResponse<?> workspaceHistory(Principal caller, String ws) throws SQLException {
    return answer(
        caller,
        Role.READER,
        "read variables",
        () -> workspaceExists(caller, ws) ? history(workspace(caller, ws)) : noWorkspace(ws));
  }

  // ---- variable sets

  /** {@code {"variableSets":[...]}} by name. */
  public HttpResponse<?> listSets(Principal caller) throws SQLException {
    return answer(
        caller,
        Role.READER,
        "read variable sets",
        () -> {
          List<Object> out = new ArrayList<>();
          for (VariableSet set : sets.list(caller.tenant())) {
            out.add(setView(caller, set));
          }
          return HttpResponse.ok(Map.of("variableSets", out));
        });
  }

  /** 201 the new (empty) set; 409 when the tenant has one of that name. */
  public HttpResponse<?> createSet(Principal caller, VariableSetBody body) throws SQLException {
    return answer(
        caller,
        Role.ADMIN,
        "manage variable sets",
        () -> {
          String name = body == null ? null : body.name();
          VariableRules.checkSetName(name);
          if (!sets.create(
              caller.tenant(),
              name,
              body.description(),
              Boolean.TRUE.equals(body.global()),
              RunCallers.name(caller))) {
            return problem(
                HttpStatus.CONFLICT,
                "Variable set exists",
                "Variable set '" + name + "' exists already; change it with PATCH.");
          }
          return HttpResponse.created(
              setView(caller, sets.find(caller.tenant(), name).orElseThrow()));
        });
  }

  public HttpResponse<?> getSet(Principal caller, String name) throws SQLException {
    return answer(
        caller,
        Role.READER,
        "read variable sets",
        () -> {
          Optional<VariableSet> set = sets.find(caller.tenant(), name);
          return set.isPresent() ? HttpResponse.ok(setView(caller, set.get())) : noSet(name);
        });
  }

  /** Changes the description or whether the set is global: 200 the set. */
  public HttpResponse<?> patchSet(Principal caller, String name, VariableSetBody body)
      throws SQLException {
    return answer(
        caller,
        Role.ADMIN,
        "manage variable sets",
        () -> {
          if (sets.find(caller.tenant(), name).isEmpty()) {
            return noSet(name);
          }
          if (body == null) {
            return problem(
                HttpStatus.BAD_REQUEST,
                "No change",
                "Send what to change, e.g. {\"description\": \"deploy keys\", \"global\": true}.");
          }
          if (body.name() != null && !body.name().equals(name)) {
            return problem(
                HttpStatus.BAD_REQUEST,
                "Cannot rename",
                "A variable set cannot be renamed; leave out \"name\" or send '" + name + "'.");
          }
          Optional<VariableSet> updated =
              sets.update(
                  caller.tenant(),
                  name,
                  body.description(),
                  body.global(),
                  RunCallers.name(caller));
          return updated.isPresent()
              ? HttpResponse.ok(setView(caller, updated.get()))
              : noSet(name);
        });
  }

  /** 204; its variables are unset (audited) and it is detached everywhere. */
  public HttpResponse<?> deleteSet(Principal caller, String name) throws SQLException {
    return answer(
        caller,
        Role.ADMIN,
        "manage variable sets",
        () ->
            sets.delete(caller.tenant(), name, RunCallers.name(caller))
                ? HttpResponse.noContent()
                : noSet(name));
  }

  public HttpResponse<?> putSetVariable(
      Principal caller, String name, String key, VariableBody body) throws SQLException {
    return answer(
        caller,
        Role.ADMIN,
        "manage variable sets",
        () ->
            sets.find(caller.tenant(), name).isEmpty()
                ? noSet(name)
                : put(caller, set(caller, name), variable(key, body)));
  }

  public HttpResponse<?> deleteSetVariable(
      Principal caller, String name, String key, String category) throws SQLException {
    return answer(
        caller,
        Role.ADMIN,
        "manage variable sets",
        () ->
            sets.find(caller.tenant(), name).isEmpty()
                ? noSet(name)
                : unset(caller, set(caller, name), key, category));
  }

  /** Attaches the set to a workspace (created with the defaults when new): 200 the set. */
  public HttpResponse<?> attach(Principal caller, String name, String ws) throws SQLException {
    return answer(
        caller,
        Role.ADMIN,
        "manage variable sets",
        () -> {
          if (sets.find(caller.tenant(), name).isEmpty()) {
            return noSet(name);
          }
          if (!ApiProblems.WORKSPACE.matcher(ws).matches()) {
            return invalidWorkspace(ws);
          }
          workspaces.ensure(caller.tenant(), ws);
          sets.attach(caller.tenant(), name, ws, RunCallers.name(caller));
          return getSet(caller, name);
        });
  }

  /** 204; 404 when the set is not attached to the workspace. */
  public HttpResponse<?> detach(Principal caller, String name, String ws) throws SQLException {
    return answer(
        caller,
        Role.ADMIN,
        "manage variable sets",
        () -> {
          if (sets.find(caller.tenant(), name).isEmpty()) {
            return noSet(name);
          }
          return sets.detach(caller.tenant(), name, ws)
              ? HttpResponse.noContent()
              : problem(
                  HttpStatus.NOT_FOUND,
                  "Not attached",
                  "Variable set '" + name + "' is not attached to workspace '" + ws + "'.");
        });
  }

  public HttpResponse<?> setHistory(Principal caller, String name) throws SQLException {
    return answer(
        caller,
        Role.READER,
        "read variable sets",
        () ->
            sets.find(caller.tenant(), name).isPresent()
                ? history(new Owner(caller.tenant(), OwnerKind.SET, name))
                : noSet(name));
  }

  // ---- shared

  private HttpResponse<?> answer(Principal caller, Role role, String what, Answer work)
      throws SQLException {
    if (!role.grantedTo(caller.role())) {
      return problem(
          HttpStatus.FORBIDDEN,
          "Forbidden",
          "A "
              + caller.role()
              + " token cannot "
              + what
              + "; use "
              + (role == Role.ADMIN ? "an admin" : "a deployer or admin")
              + " token.");
    }
    try {
      return work.get();
    } catch (VariableRefused e) {
      return problem(
          switch (e.reason()) {
            case INVALID -> HttpStatus.BAD_REQUEST;
            case NOT_FOUND -> HttpStatus.NOT_FOUND;
            case CONFLICT, CANNOT_SEAL -> HttpStatus.CONFLICT;
          },
          e.title(),
          e.getMessage());
    }
  }

  private HttpResponse<?> put(Principal caller, Owner owner, StoredVariable variable)
      throws SQLException {
    long version = variables.put(owner, variable, RunCallers.name(caller));
    Listed stored =
        variables.list(owner).variables().stream()
            .filter(l -> l.variable().is(variable.category(), variable.key()))
            .findFirst()
            .orElseThrow();
    Map<String, Object> out = view(stored, showValues(caller));
    out.put("version", version);
    return HttpResponse.ok(out);
  }

  private HttpResponse<?> unset(Principal caller, Owner owner, String key, String categoryText)
      throws SQLException {
    VariableCategory category = VariableRules.category(categoryText);
    VariableRules.checkKey(category, key);
    return variables.unset(owner, category, key, RunCallers.name(caller)).isPresent()
        ? HttpResponse.noContent()
        : problem(
            HttpStatus.NOT_FOUND,
            "Not Found",
            (owner.kind() == OwnerKind.SET ? "Variable set '" : "Workspace '")
                + owner.name()
                + "' has no "
                + VariableRules.name(category)
                + " variable "
                + key
                + (category == VariableCategory.TERRAFORM
                    ? " (for an environment variable add ?category=env)."
                    : "."));
  }

  private HttpResponse<?> history(Owner owner) throws SQLException {
    List<Object> out = new ArrayList<>();
    for (Change change : variables.history(owner)) {
      Map<String, Object> c = new LinkedHashMap<>();
      c.put("version", change.version());
      c.put("key", change.key());
      c.put("category", VariableRules.name(change.category()));
      c.put("change", change.set() ? "set" : "unset");
      c.put("sensitive", change.sensitive());
      c.put("by", change.by());
      c.put("at", change.at().toString());
      out.add(c);
    }
    return HttpResponse.ok(Map.of("changes", out));
  }

  /** The variable a request sets, checked (before anything is created for it). */
  private StoredVariable variable(String key, VariableBody body) {
    if (body == null) {
      throw new VariableRefused(
          VariableRefused.Reason.INVALID,
          "No value",
          "Send the variable: {\"value\": \"...\", \"category\": \"terraform\" or \"env\","
              + " \"sensitive\": true|false, \"hcl\": true|false, \"description\": \"...\"}.");
    }
    StoredVariable variable =
        new StoredVariable(
            key,
            VariableRules.category(body.category()),
            body.value(),
            Boolean.TRUE.equals(body.hcl()),
            Boolean.TRUE.equals(body.sensitive()),
            body.description());
    // the store checks again, against what is stored
    VariableRules.checkPut(variable, Optional.empty(), variables.canSeal());
    return variable;
  }

  private Map<String, Object> setView(Principal caller, VariableSet set) throws SQLException {
    Listing listing = variables.list(new Owner(caller.tenant(), OwnerKind.SET, set.name()));
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("name", set.name());
    out.put("description", set.description());
    out.put("global", set.global());
    out.put("workspaces", set.workspaces());
    out.put("version", listing.version());
    out.put("variables", views(listing, showValues(caller)));
    return out;
  }

  private static List<Object> views(Listing listing, boolean values) {
    List<Object> out = new ArrayList<>();
    listing.variables().forEach(l -> out.add(view(l, values)));
    return out;
  }

  /** A variable as the API shows it: never a sensitive value, no value at all for a reader. */
  private static Map<String, Object> view(Listed listed, boolean values) {
    StoredVariable v = listed.variable();
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("key", v.key());
    out.put("category", VariableRules.name(v.category()));
    out.put("hcl", v.hcl());
    out.put("sensitive", v.sensitive());
    if (values && !v.sensitive() && v.value() != null) {
      out.put("value", v.value());
    }
    out.put("description", v.description());
    out.put("updatedAt", listed.updatedAt().toString());
    out.put("updatedBy", listed.updatedBy());
    return out;
  }

  private static boolean showValues(Principal caller) {
    return Role.DEPLOYER.grantedTo(caller.role());
  }

  private boolean workspaceExists(Principal caller, String ws) throws SQLException {
    return ApiProblems.WORKSPACE.matcher(ws).matches()
        && workspaces.find(caller.tenant(), ws).isPresent();
  }

  private static Owner workspace(Principal caller, String ws) {
    return new Owner(caller.tenant(), OwnerKind.WORKSPACE, ws);
  }

  private static Owner set(Principal caller, String name) {
    return new Owner(caller.tenant(), OwnerKind.SET, name);
  }

  private static HttpResponse<?> noWorkspace(String ws) {
    return problem(HttpStatus.NOT_FOUND, "Not Found", "There is no workspace " + ws + ".");
  }

  private static HttpResponse<?> noSet(String name) {
    return problem(HttpStatus.NOT_FOUND, "Not Found", "There is no variable set " + name + ".");
  }

  private static HttpResponse<?> invalidWorkspace(String ws) {
    return problem(
        HttpStatus.BAD_REQUEST,
        "Invalid workspace",
        "A workspace name is 1-90 letters, digits, '_', '.' or '-', starting with a letter or"
            + " digit; got "
            + ws
            + ".");
  }
}
