import sys

from ticketlabeler.cli import main

sys.exit(main())
