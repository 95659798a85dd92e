package org.toscanini.bpel;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The copy of a process that ODE's compiler reads: each {@code <extensionActivity>} replaced by an
 * {@code <empty>} on the same lines. Released ODE has no extension activities and drops each one,
 * so a sequence of bpel4RestLight calls alone (a filter that only sets a state) was an empty
 * sequence to it ("[EmptySequence] Empty sequences are forbidden"), where the OpenTOSCA
 * container's ODE build, which the plans target, runs an activity there. {@link ExtensionCheck}
 * checks the calls themselves, on the file as written.
 */
final class ExtensionStandIns {
    private static final Pattern EXTENSION = Pattern.compile(
            "<((?:[A-Za-z_][\\w.-]*:)?)extensionActivity\\b[^>]*>(.*?)</\\1extensionActivity\\s*>",
            Pattern.DOTALL);

    private ExtensionStandIns() {
    }

    /** Rewrites the staged file {@code bpel} (never the caller's). */
    static void write(Path bpel) throws IOException {
        String text = Files.readString(bpel, StandardCharsets.UTF_8);
        Files.writeString(bpel, standIns(text), StandardCharsets.UTF_8);
    }

    static String standIns(String text) {
        Matcher m = EXTENSION.matcher(text);
        StringBuilder out = new StringBuilder(text.length());
        while (m.find()) {
            // The same number of lines, so that ODE's line numbers stay those of the file.
            String lines = "\n".repeat((int) m.group().chars().filter(c -> c == '\n').count());
            m.appendReplacement(out, Matcher.quoteReplacement("<" + m.group(1) + "empty/>" + lines));
        }
        m.appendTail(out);
        return out.toString();
    }
}
