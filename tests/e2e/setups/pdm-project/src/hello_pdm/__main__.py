import sys

import six

print(f"six {six.__version__}; {' '.join(sys.argv[1:])}")
