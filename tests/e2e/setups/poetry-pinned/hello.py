import sys

import six

print(f"six {six.__version__}; {sys.argv[1] if len(sys.argv) > 1 else ''}")
