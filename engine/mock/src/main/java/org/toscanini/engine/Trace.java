package org.toscanini.engine;

import groovy.json.JsonOutput;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What happened during one run, in one total order: every request the mock container
 * received and every start and end of a BPMN activity the engine executed. One sequence
 * counter serves both, so the order of the lines is the order of the events; times are
 * microseconds since the run started.
 */
final class Trace {
  private final long origin = System.nanoTime();
  private final AtomicLong seq = new AtomicLong();
  private final List<Map<String, Object>> events = new ArrayList<>();

  long now() {
    return (System.nanoTime() - origin) / 1000;
  }

  /** A new event with its sequence number and start time; the caller fills the rest. */
  synchronized Map<String, Object> open(String kind) {
    Map<String, Object> e = new LinkedHashMap<>();
    e.put("seq", seq.incrementAndGet());
    long t = now();
    e.put("start", t);
    e.put("end", t);
    e.put("kind", kind);
    events.add(e);
    return e;
  }

  /** Marks an event as ended now. */
  synchronized void close(Map<String, Object> e) {
    e.put("end", now());
  }

  synchronized List<Map<String, Object>> events() {
    List<Map<String, Object>> copy = new ArrayList<>(events);
    copy.sort(Comparator.comparingLong(e -> (Long) e.get("seq")));
    return copy;
  }

  /** Writes the events as JSON lines, then the result line. */
  void write(Path out, Map<String, Object> result) throws IOException {
    StringBuilder text = new StringBuilder();
    for (Map<String, Object> e : events()) {
      text.append(JsonOutput.toJson(e)).append('\n');
    }
    text.append(JsonOutput.toJson(result)).append('\n');
    if (out.getParent() != null) {
      Files.createDirectories(out.getParent());
    }
    Files.writeString(out, text.toString(), StandardCharsets.UTF_8);
  }
}
