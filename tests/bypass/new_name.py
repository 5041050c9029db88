"""new_name.py MODE PATH WORKDIR - give PATH (or a directory above it) a new
name in WORKDIR, then use the file under that name; print "ok" or the errno
name of the step that failed, and put everything back. Each MODE is one way
a confined process might escape a path-based deny by renaming
(tests/vm/t_bypass.sh says which must hold):
  rename-read   rename(PATH, WORKDIR/n), read WORKDIR/n
  link-read     link(PATH, WORKDIR/n), read WORKDIR/n
  dir-read      rename(PATH's directory, WORKDIR/d), read WORKDIR/d/NAME
  up-read       rename(the directory above PATH's, WORKDIR/u), read
                WORKDIR/u/DIR/NAME
  rename-exec   rename(PATH, WORKDIR/n), run WORKDIR/n
  link-exec     link(PATH, WORKDIR/n), run WORKDIR/n
"""
import errno
import os
import subprocess
import sys


def name(e):
    return errno.errorcode.get(e.errno, "E?")


def use(path, run):
    if run:
        subprocess.run([path], check=True)
    else:
        with open(path, "rb") as f:
            f.read(16)


def main():
    mode, path, work = sys.argv[1:4]
    d = os.path.dirname(path)
    up = os.path.dirname(d)
    if mode.startswith("rename") or mode.startswith("link"):
        src, dst, used = path, os.path.join(work, "n"), os.path.join(work, "n")
    elif mode == "dir-read":
        src, dst = d, os.path.join(work, "d")
        used = os.path.join(dst, os.path.basename(path))
    elif mode == "up-read":
        src, dst = up, os.path.join(work, "u")
        used = os.path.join(dst, os.path.relpath(path, up))
    else:
        print("usage: new_name.py MODE PATH WORKDIR", file=sys.stderr)
        return 2
    link = mode.startswith("link")
    try:
        (os.link if link else os.rename)(src, dst)
    except OSError as e:
        print(name(e))
        return 1
    rc = 0
    try:
        use(used, mode.endswith("exec"))
        print("ok")
    except OSError as e:
        print(name(e))
        rc = 1
    except subprocess.CalledProcessError:
        print("failed")
        rc = 1
    finally:
        if link:
            os.unlink(dst)
        else:
            os.rename(dst, src)
    return rc


sys.exit(main())
