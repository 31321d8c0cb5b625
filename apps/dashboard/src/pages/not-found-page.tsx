import { Button } from '@mantine/core';
import { Link } from 'react-router';
import { PageHeader } from '../components/page-header';

export function NotFoundPage() {
  return (
    <>
      <PageHeader
        title="Page not found"
        description="There is no dashboard page at this address."
      />
      <Button component={Link} to="/">
        Go to the overview
      </Button>
    </>
  );
}
