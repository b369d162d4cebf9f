package dev.stagecraft.language.config;

import com.google.re2j.Pattern;
import dev.stagecraft.language.diag.Diagnostics;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * The modules a configuration calls, loaded and checked (docs/adr/0065): each call's source
 * resolved against its caller's directory, the module's files decoded, its inputs checked against
 * the variables it declares, recursively. Only local sources ({@code ./x}, {@code ../x} inside the
 * configuration's files) and git sources (read from the directory the CLI sends their files under,
 * {@link GitSource#directory()}) are read; registry and other remote sources are errors that say
 * what to do.
 */
public final class ModuleTree {
  /** At most this many nested module calls. */
  static final int MAX_DEPTH = 16;

  /**
   * At most this many modules loaded for one configuration: two calls per module over 16 levels
   * would otherwise load 65,535 (a configuration is attacker input, design §8).
   */
  static final int MAX_MODULES = 1_000;

  private static final Pattern REGISTRY =
      Pattern.compile("^([A-Za-z0-9.-]+/)?[A-Za-z0-9_-]+/[A-Za-z0-9_-]+/[A-Za-z0-9_-]+(//.*)?$");

  private ModuleTree() {}

  /**
   * One called module.
   *
   * @param path its address, {@code module.app} or {@code module.app.module.db}
   * @param dir its directory relative to the configuration's, {@code modules/app}
   */
  public record Module(
      String path, String dir, ModuleCallDecl call, Configuration config, List<Module> children) {
    public Module {
      children = List.copyOf(children);
    }
  }

  /** The configuration files ({@code *.tf}, {@code *.tf.json}) of a directory, by name. */
  public interface ModuleFiles {
    Map<String, String> read(String dir);

    /**
     * The files of {@code dir} under {@code base}, never outside it (symbolic links included); none
     * when {@code base} is null (no files were sent with the configuration).
     */
    static ModuleFiles under(Path base) {
      return dir -> {
        if (base == null) {
          return Map.of();
        }
        Map<String, String> out = new TreeMap<>();
        try {
          Path root = base.toRealPath();
          Path d = root.resolve(dir).normalize();
          if (!d.startsWith(root) || !Files.isDirectory(d) || !d.toRealPath().startsWith(root)) {
            return Map.of();
          }
          try (Stream<Path> entries = Files.list(d)) {
            for (Path p : entries.sorted().toList()) {
              String name = p.getFileName().toString();
              if ((name.endsWith(".tf") || name.endsWith(".tf.json"))
                  && Files.isRegularFile(p)
                  && p.toRealPath().startsWith(root)) {
                out.put(name, Files.readString(p, StandardCharsets.UTF_8));
              }
            }
          }
        } catch (IOException e) {
          return Map.of();
        }
        return out;
      };
    }
  }

  /** Loads every module {@code root} calls, adding every problem to {@code d}. */
  public static List<Module> load(Configuration root, ModuleFiles files, Diagnostics d) {
    return children(root, "", "", files, d, List.of(), new int[1]);
  }

  private static List<Module> children(
      Configuration caller,
      String callerPath,
      String callerDir,
      ModuleFiles files,
      Diagnostics d,
      List<String> chain,
      int[] loaded) {
    List<Module> out = new ArrayList<>();
    for (ModuleCallDecl call : caller.modules()) {
      if (++loaded[0] > MAX_MODULES) {
        d.error(
            "Too many modules",
            "The configuration calls more than "
                + MAX_MODULES
                + " modules in all (counting every call of every module); this call is one too"
                + " many.",
            call.range());
        return out;
      }
      String path = (callerPath.isEmpty() ? "" : callerPath + ".") + "module." + call.name();
      String dir = directory(call, callerDir, d);
      if (dir == null) {
        continue;
      }
      if (chain.contains(dir)) {
        d.error(
            "Module call cycle",
            "Module \""
                + call.name()
                + "\" calls "
                + dir
                + ", which is already being loaded by "
                + callerPath
                + "; a module cannot call itself, directly or through others.",
            call.sourceRange());
        continue;
      }
      if (chain.size() >= MAX_DEPTH) {
        d.error(
            "Modules nested too deeply",
            path + " is nested " + (chain.size() + 1) + " deep; at most " + MAX_DEPTH + " levels.",
            call.range());
        continue;
      }
      Map<String, String> read = read(call, dir, files, d);
      if (read == null) {
        continue;
      }
      Map<String, String> named = new TreeMap<>();
      read.forEach((name, text) -> named.put(dir + "/" + name, text));
      LoadResult result = ConfigLoader.load(named);
      d.addAll(result.diagnostics());
      Configuration config = result.config();
      checkInputs(call, dir, config, d);
      List<String> deeper = new ArrayList<>(chain);
      deeper.add(dir);
      out.add(
          new Module(
              path, dir, call, config, children(config, path, dir, files, d, deeper, loaded)));
    }
    return out;
  }

  /** The module's files (name → text), or null when there are none (error added). */
  private static Map<String, String> read(
      ModuleCallDecl call, String dir, ModuleFiles files, Diagnostics d) {
    Map<String, String> read = files.read(dir);
    if (read.isEmpty() && GitSource.isGit(call.source())) {
      d.error(
          "Git module not fetched",
          "Module \""
              + call.name()
              + "\" has the git source \""
              + GitSource.redacted(call.source())
              + "\", whose files are not among the files sent with the configuration (the"
              + " planner never fetches a repository). Run stagecraft plan or apply from the CLI,"
              + " which fetches git modules, or send the module's files under "
              + dir
              + ".",
          call.sourceRange());
      return null;
    }
    if (read.isEmpty()) {
      d.error(
          "Unreadable module directory",
          "The directory "
              + dir
              + ", the source of module \""
              + call.name()
              + "\", holds no .tf or .tf.json files among the files sent with the"
              + " configuration.",
          call.sourceRange());
      return null;
    }
    return read;
  }

  /** A local source ({@code ./} or {@code ../}): inside the configuration and its checkout. */
  private static String localDirectory(ModuleCallDecl call, String callerDir, Diagnostics d) {
    String source = call.source();
    Path resolved = Path.of(callerDir.isEmpty() ? "." : callerDir).resolve(source).normalize();
    String dir = resolved.toString().replace('\\', '/');
    String checkout = checkoutOf(callerDir);
    if (checkout != null && !dir.equals(checkout) && !dir.startsWith(checkout + "/")) {
      d.error(
          "Module source outside its git repository",
          "The source \""
              + source
              + "\" of module \""
              + call.name()
              + "\" leaves the git repository its caller was fetched from ("
              + checkout
              + "); a module in a git repository can call modules of the same repository, or"
              + " other git sources.",
          call.sourceRange());
      return null;
    }
    if (dir.startsWith("..") || resolved.isAbsolute()) {
      d.error(
          "Module source outside the configuration",
          "The source \""
              + source
              + "\" of module \""
              + call.name()
              + "\" leaves the configuration directory; only the files in it are sent to"
              + " Stagecraft. Move the module into the configuration directory and call it with"
              + " a path inside it, such as \"./modules/"
              + call.name()
              + "\".",
          call.sourceRange());
      return null;
    }
    return dir.isEmpty() ? "." : dir;
  }

  /** The module's directory relative to the configuration's, or null (error added). */
  private static String directory(ModuleCallDecl call, String callerDir, Diagnostics d) {
    String source = call.source();
    if (source.startsWith("./") || source.startsWith("../")) {
      return localDirectory(call, callerDir, d);
    }
    if (source.startsWith("/")) {
      d.error(
          "Invalid module source",
          "A local module source must begin with ./ or ../ (relative to the calling module's"
              + " directory), such as \"./modules/"
              + call.name()
              + "\"; \""
              + source
              + "\" is an absolute path.",
          call.sourceRange());
      return null;
    }
    if (GitSource.isGit(source)) {
      try {
        return GitSource.parse(source).directory();
      } catch (GitSource.InvalidException e) {
        d.error("Invalid git module source", e.getMessage(), call.sourceRange());
        return null;
      }
    }
    if (REGISTRY.matcher(source).matches() && !source.contains("::")) {
      d.error(
          "Module registry sources are not supported",
          "Module \""
              + call.name()
              + "\" has the registry source \""
              + source
              + "\"; Stagecraft reads modules from the configuration's own files. Copy the module"
              + " into the configuration directory and call it with a local path, such as"
              + " source = \"./modules/"
              + call.name()
              + "\".",
          call.sourceRange());
      return null;
    }
    d.error(
        "Unsupported module source",
        "Module \""
            + call.name()
            + "\" has the source \""
            + GitSource.redacted(source)
            + "\"; Stagecraft reads local modules (\"./modules/"
            + call.name()
            + "\") and git repositories, written as git::https://host/repo.git//dir?ref=v1.2"
            + " (other remote sources, such as archives, S3, GCS, Mercurial or GitHub shorthands,"
            + " are not supported).",
        call.sourceRange());
    return null;
  }

  /** The git checkout directory {@code dir} lies in ({@code .stagecraft/modules/HASH}), or null. */
  private static String checkoutOf(String dir) {
    if (!dir.startsWith(GitSource.RESERVED + "/")) {
      return null;
    }
    int end = dir.indexOf('/', GitSource.RESERVED.length() + 1);
    return end < 0 ? dir : dir.substring(0, end);
  }

  /** Every input names a variable of the module; every required variable has an input. */
  private static void checkInputs(
      ModuleCallDecl call, String dir, Configuration module, Diagnostics d) {
    for (AttributeDecl input : call.inputs().values()) {
      if (!module.variables().containsKey(input.name())) {
        d.error(
            "Unsupported argument",
            "An argument named \""
                + input.name()
                + "\" is not expected here: module \""
                + call.name()
                + "\" ("
                + dir
                + ") declares no variable \""
                + input.name()
                + "\".",
            input.range());
      }
    }
    for (VariableDecl v : module.variables().values()) {
      if (v.required() && !call.inputs().containsKey(v.name())) {
        d.error(
            "Missing required argument",
            "The argument \""
                + v.name()
                + "\" is required, but no definition was found: module \""
                + call.name()
                + "\" ("
                + dir
                + ") declares variable \""
                + v.name()
                + "\" without a default.",
            call.range());
      }
    }
  }
}
