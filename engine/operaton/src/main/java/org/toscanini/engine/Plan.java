package org.toscanini.engine;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;

/**
 * A BPMN plan as deployed: its .bpmn files and the resources beside them (the deployment://
 * Groovy scripts), read from a plan archive (.zip, as written into a CSAR), an exported plan
 * directory, or a .bpmn file (with the files of its directory).
 */
final class Plan {
  final String name;
  final Map<String, byte[]> resources;

  private Plan(String name, Map<String, byte[]> resources) {
    this.name = name;
    this.resources = resources;
  }

  static Plan load(Path path) throws IOException {
    if (!Files.exists(path)) {
      throw new IOException(path + ": no such file or directory");
    }
    Map<String, byte[]> files = new TreeMap<>();
    if (Files.isDirectory(path)) {
      readDir(path, files);
    } else if (path.toString().endsWith(".bpmn")) {
      readDir(path.toAbsolutePath().getParent(), files);
    } else {
      readZip(path, files);
    }
    files.keySet().removeIf(n -> !n.endsWith(".bpmn") && !n.endsWith(".groovy"));
    List<String> bpmn = files.keySet().stream().filter(n -> n.endsWith(".bpmn")).toList();
    if (bpmn.isEmpty()) {
      throw new IOException(path + ": not a BPMN plan (no .bpmn file in it)");
    }
    String main = path.toString().endsWith(".bpmn") ? path.getFileName().toString() : bpmn.get(0);
    for (String n : bpmn) {
      if (!new String(files.get(n), StandardCharsets.UTF_8).contains("isExecutable=\"true\"")) {
        throw new IOException(path + ": " + n + " has no executable process");
      }
    }
    return new Plan(main.replaceAll("\\.bpmn$", ""), files);
  }

  private static void readDir(Path dir, Map<String, byte[]> files) throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      for (Path p : s.sorted().toList()) {
        if (Files.isRegularFile(p)) {
          files.put(p.getFileName().toString(), Files.readAllBytes(p));
        }
      }
    }
  }

  private static void readZip(Path zip, Map<String, byte[]> files) throws IOException {
    try (InputStream in = Files.newInputStream(zip); ZipInputStream z = new ZipInputStream(in)) {
      ZipEntry entry;
      boolean any = false;
      while ((entry = z.getNextEntry()) != null) {
        any = true;
        String n = entry.getName();
        if (entry.isDirectory() || n.contains("..") || n.startsWith("/")) {
          continue;
        }
        if (n.indexOf('/') < 0) {
          files.put(n, z.readAllBytes());
        }
      }
      if (!any) {
        throw new IOException(zip + ": not a plan archive (not a zip file, or an empty one)");
      }
    }
  }

  /** A digest of the plan's files, names and contents. */
  String digest() {
    try {
      java.security.MessageDigest md = java.security.MessageDigest.getInstance("SHA-256");
      for (Map.Entry<String, byte[]> f : resources.entrySet()) {
        md.update(f.getKey().getBytes(StandardCharsets.UTF_8));
        md.update((byte) 0);
        md.update(f.getValue());
        md.update((byte) 0);
      }
      return java.util.HexFormat.of().formatHex(md.digest());
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  String mainText() {
    return new String(resources.get(name + ".bpmn"), StandardCharsets.UTF_8);
  }

  /** The plan's outputs: the variables its output task ({@code plan_outputs}) sets. */
  List<String> outputs() {
    List<String> names = new ArrayList<>();
    Matcher task = Pattern.compile("<scriptTask id=\"plan_outputs\".*?</scriptTask>", Pattern.DOTALL)
        .matcher(mainText());
    if (task.find()) {
      Matcher m = Pattern.compile("setv\\('((?:[^'\\\\]|\\\\.)*)',").matcher(task.group());
      while (m.find()) {
        names.add(m.group(1));
      }
    }
    return names;
  }

  /** The process variables the plan says to set when starting it (its header comment). */
  List<String> inputs() {
    Matcher m = Pattern.compile("Process variables to set when starting it:([^\\n]*)").matcher(mainText());
    List<String> names = new ArrayList<>();
    if (m.find()) {
      for (String n : m.group(1).replace("-->", " ").trim().split("\\s+")) {
        if (!n.isEmpty()) {
          names.add(n);
        }
      }
    }
    return names;
  }

  /**
   * The output parameters of operations that the plan reads: the `output:NAME` input
   * parameters of an activity's result task, and the `output:NAME=VAR` fields of the
   * `outputs` lines of steps given as text (NAME written with `%XX` escapes). The mock
   * bus answers a call with exactly these: a name missed here leaves the plan's mapping
   * of that output untried.
   */
  List<String> operationOutputs() {
    Set<String> names = new LinkedHashSet<>();
    Pattern field = Pattern.compile("name=\"output:([^\"]+)\"| output:([^=\\s&<\"]+)=");
    for (byte[] bytes : resources.values()) {
      Matcher m = field.matcher(new String(bytes, StandardCharsets.UTF_8));
      while (m.find()) {
        names.add(m.group(1) != null ? m.group(1) : unpercent(m.group(2)));
      }
    }
    return new ArrayList<>(names);
  }

  /** TEXT with its `%XX` escapes undone (a `+` stays a `+`). */
  static String unpercent(String text) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '%' && i + 2 < text.length()) {
        out.write(Integer.parseInt(text.substring(i + 1, i + 3), 16));
        i += 2;
      } else {
        out.writeBytes(String.valueOf(c).getBytes(StandardCharsets.UTF_8));
      }
    }
    return out.toString(StandardCharsets.UTF_8);
  }
}
