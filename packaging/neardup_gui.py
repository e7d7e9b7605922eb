"""The bundle's entry script: PyInstaller freezes a script, not a console-script entry point."""

import sys

from app.__main__ import main

if __name__ == "__main__":
    sys.exit(main())
