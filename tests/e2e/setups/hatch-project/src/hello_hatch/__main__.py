import os
import sys

import six

import hello_hatch

here = os.path.relpath(os.path.dirname(hello_hatch.__file__), os.getcwd())
print(f"six {six.__version__} from the environment; hello_hatch from {here}; {' '.join(sys.argv[1:])}")
