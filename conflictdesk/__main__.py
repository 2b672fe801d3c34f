from conflictdesk.cli import main

raise SystemExit(main())
