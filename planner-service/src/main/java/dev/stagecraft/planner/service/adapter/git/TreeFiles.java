package dev.stagecraft.planner.service.adapter.git;

import dev.stagecraft.planner.service.run.UploadedFiles;
import dev.stagecraft.planner.service.source.GitSourceRules;
import dev.stagecraft.planner.service.source.SourceUnavailable;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.AbstractMap;
import java.util.Map;
import java.util.TreeMap;
import org.eclipse.jgit.lib.FileMode;
import org.eclipse.jgit.lib.ObjectLoader;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.treewalk.TreeWalk;
import org.eclipse.jgit.treewalk.filter.PathFilter;

/**
 * Reads a commit's files below a directory straight from the object database (no checkout, so no
 * hook or filter runs): {@code *.tf} and {@code *.tf.json} directly in the directory as text, every
 * other regular file below it as bytes, by path relative to the directory. Symbolic links,
 * submodules and hidden files or directories are left out. Bounded as uploads are ({@link
 * UploadedFiles}). Stateless.
 */
final class TreeFiles {
  private TreeFiles() {}

  /** (configuration files, supporting files) of {@code commit} below {@code directory}. */
  static Map.Entry<Map<String, String>, Map<String, byte[]>> read(
      Repository repo, RevCommit commit, String directory, String shown)
      throws IOException, SourceUnavailable {
    String dir = GitSourceRules.normalDirectory(directory);
    Map<String, String> files = new TreeMap<>();
    Map<String, byte[]> support = new TreeMap<>();
    long configBytes = 0;
    long supportBytes = 0;
    try (TreeWalk tree = new TreeWalk(repo)) {
      tree.addTree(commit.getTree());
      tree.setRecursive(true);
      if (!dir.isEmpty()) {
        tree.setFilter(PathFilter.create(dir));
      }
      while (tree.next()) {
        String path = tree.getPathString();
        if (!GitSourceRules.under(path, dir) || path.equals(dir)) {
          continue;
        }
        String relative = dir.isEmpty() ? path : path.substring(dir.length() + 1);
        int mode = tree.getRawMode(0);
        boolean regular =
            FileMode.REGULAR_FILE.equals(mode) || FileMode.EXECUTABLE_FILE.equals(mode);
        if (!regular || ("/" + relative).contains("/.")) {
          continue;
        }
        if (files.size() + support.size() >= UploadedFiles.MAX_FILES) {
          throw tooLarge(shown, commit, "it has more than " + UploadedFiles.MAX_FILES + " files");
        }
        ObjectLoader blob = repo.open(tree.getObjectId(0));
        long size = blob.getSize();
        boolean config =
            !relative.contains("/") && (relative.endsWith(".tf") || relative.endsWith(".tf.json"));
        if (config) {
          configBytes += size;
          if (configBytes > UploadedFiles.MAX_TOTAL_BYTES) {
            throw tooLarge(shown, commit, "its configuration files hold more than 10 MiB");
          }
          files.put(relative, new String(blob.getBytes(), StandardCharsets.UTF_8));
        } else {
          if (size > UploadedFiles.MAX_FILE_BYTES) {
            throw tooLarge(shown, commit, "the file " + path + " is larger than 1 MiB");
          }
          supportBytes += size;
          if (supportBytes > UploadedFiles.MAX_TOTAL_BYTES) {
            throw tooLarge(shown, commit, "its other files hold more than 10 MiB");
          }
          support.put(relative, blob.getBytes());
        }
      }
    }
    if (files.isEmpty()) {
      throw new SourceUnavailable(
          "directory '"
              + (dir.isEmpty() ? "/" : dir)
              + "' of "
              + shown
              + " at commit "
              + commit.name()
              + " holds no .tf file; check the source's directory");
    }
    return new AbstractMap.SimpleImmutableEntry<>(files, support);
  }

  private static SourceUnavailable tooLarge(String shown, RevCommit commit, String why) {
    return new SourceUnavailable(
        "the configuration of "
            + shown
            + " at commit "
            + commit.name()
            + " is too large: "
            + why
            + " (the limits of uploads: 1 MiB per file, 10 MiB in all)");
  }
}
