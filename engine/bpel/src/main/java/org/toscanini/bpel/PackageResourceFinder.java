package org.toscanini.bpel;

import java.io.FileInputStream;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;

import org.apache.ode.bpel.compiler.ResourceFinder;

/**
 * Resolves the imports of a BPEL process (WSDL, XSD) relative to the plan package, and only
 * inside it: a plan must be self-contained, and a check that may not reach the network must
 * neither hang on nor silently depend on a remote document.
 */
final class PackageResourceFinder implements ResourceFinder {
    private final Path root;

    PackageResourceFinder(Path root) {
        this.root = root.toAbsolutePath().normalize();
    }

    @Override
    public InputStream openResource(URI uri) throws IOException {
        URI resolved = uri.isAbsolute() ? uri : root.toUri().resolve(uri);
        if (!"file".equalsIgnoreCase(resolved.getScheme())) {
            throw new IOException("refusing to load " + uri + ": not a file of the plan package");
        }
        Path p = Path.of(resolved).toAbsolutePath().normalize();
        if (!p.startsWith(root)) {
            throw new IOException("refusing to load " + uri + ": outside the plan package");
        }
        if (!Files.isRegularFile(p)) {
            throw new FileNotFoundException(root.relativize(p) + " (not in the plan package)");
        }
        return new FileInputStream(p.toFile());
    }

    @Override
    public URI getBaseResourceURI() {
        return root.toUri();
    }

    @Override
    public URI resolve(URI parent, URI child) {
        if (parent == null) {
            return root.toUri().resolve(child);
        }
        return parent.resolve(child);
    }
}
