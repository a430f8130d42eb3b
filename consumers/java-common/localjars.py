#!/usr/bin/env python3
"""localjars.py - the jars of a local build (issue 25: FAMILY@file:PATH) and their Maven coordinates.

    localjars.py PATH

PATH is one jar, or a directory of jars (searched recursively, as a Kafka Connect plugin directory
or a Maven target/ folder; *-sources.jar, *-javadoc.jar, *-tests.jar and *-test-sources.jar are
left out). Prints one line per jar, tab-separated:

    GROUP_ID  ARTIFACT_ID  VERSION  JAR_PATH

read from the jar's META-INF/maven/GROUP/ARTIFACT/pom.properties (a jar holding several, e.g. a
shaded one, gives the one whose artifactId matches its file name, else the first); a jar without
any gives "-" as GROUP_ID and ARTIFACT-VERSION from its file name (VERSION starts with a digit),
else "-" for both. Standard library only. Exit status 0, or 2 with a message on stderr (no jar,
unreadable jar).
"""
import os
import re
import sys
import zipfile

SKIP = re.compile(r"-(sources|javadoc|tests|test-sources)\.jar$")
NAMED = re.compile(r"^(.+?)-(\d[^/]*)\.jar$")


def fail(msg):
    sys.stderr.write("localjars.py: %s\n" % msg)
    sys.exit(2)


def jars(path):
    if os.path.isfile(path):
        return [path]
    if not os.path.isdir(path):
        fail("%s: no such file or directory" % path)
    out = []
    for root, dirs, files in os.walk(path):
        dirs.sort()
        for f in sorted(files):
            if f.endswith(".jar") and not SKIP.search(f):
                out.append(os.path.join(root, f))
    if not out:
        fail("%s: no .jar in it (build the library first, e.g. `mvn package`, and name the jar or its folder)" % path)
    return out


def props(text):
    d = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line[0] in "#!" or "=" not in line:
            continue
        k, v = line.split("=", 1)
        d[k.strip()] = v.strip()
    return d


def coords(jar):
    name = os.path.basename(jar)
    m = NAMED.match(name)
    try:
        with zipfile.ZipFile(jar) as z:
            found = []
            for n in z.namelist():
                if n.startswith("META-INF/maven/") and n.endswith("/pom.properties"):
                    p = props(z.read(n).decode("utf-8", "replace"))
                    if p.get("artifactId") and p.get("version"):
                        found.append(p)
    except (OSError, zipfile.BadZipFile) as e:
        fail("%s: not a readable jar (%s)" % (jar, e))
    if found:
        pick = found[0]
        for p in found:
            if name.startswith(p["artifactId"] + "-"):
                pick = p
                break
        return pick.get("groupId", "-"), pick["artifactId"], pick["version"]
    if m:
        return "-", m.group(1), m.group(2)
    return "-", name[:-4], "-"


def main(argv):
    if len(argv) != 1 or argv[0] in ("-h", "--help"):
        sys.stdout.write(__doc__)
        return 0 if argv[:1] in (["-h"], ["--help"]) else 2
    for j in jars(argv[0]):
        g, a, v = coords(j)
        sys.stdout.write("%s\t%s\t%s\t%s\n" % (g, a, v, os.path.abspath(j)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
