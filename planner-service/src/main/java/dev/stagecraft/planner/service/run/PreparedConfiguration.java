package dev.stagecraft.planner.service.run;

import dev.stagecraft.language.config.LoadResult;
import java.nio.file.Path;

/**
 * What the configuration check of a run request prepared (docs/adr/0025): the request's files
 * written to a fresh directory ({@link UploadedFiles#materialise}) and its configuration files
 * parsed. A run started with it adopts both instead of writing the files and parsing them again
 * under the lock; from then on the run owns the directory and deletes it when it ends.
 *
 * <p>Hand one to exactly one run. The parsed configuration is immutable; the directory is not
 * shared.
 *
 * @param directory the written files of exactly the run's request
 * @param parsed the parse of exactly the request's configuration files
 */
public record PreparedConfiguration(Path directory, LoadResult parsed) {}
