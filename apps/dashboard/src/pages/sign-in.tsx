import {
  Alert,
  Button,
  Center,
  Paper,
  PasswordInput,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { useState } from 'react';
import { Navigate, useLocation } from 'react-router';
import { ApiError, errorMessage } from '../api/errors';
import { returnPath } from '../auth/return-to';
import { useSession } from '../auth/session';

export function SignInPage() {
  const session = useSession();
  const location = useLocation();
  const [error, setError] = useState<string | null>(null);
  const form = useForm({
    initialValues: { email: '', password: '' },
    validate: {
      email: (v) => (/^\S+@\S+$/.test(v) ? null : 'Enter your email address'),
      password: (v) => (v ? null : 'Enter your password'),
    },
  });

  if (session.signedIn)
    return <Navigate to={returnPath(location)} replace state={location.state} />;

  const submit = form.onSubmit(async (values) => {
    setError(null);
    try {
      await session.signIn(values.email, values.password);
    } catch (err) {
      if (err instanceof ApiError && err.status === 422) form.setErrors(err.fieldErrors());
      setError(errorMessage(err));
    }
  });

  return (
    <Center mih="100vh" bg="gray.0" component="main">
      <Paper withBorder shadow="sm" p="xl" w={400} radius="md">
        <form onSubmit={submit} noValidate>
          <Stack>
            <div>
              <Title order={1} size="h2">
                Sign in
              </Title>
              <Text c="dimmed" size="sm">
                Messaging Platform dashboard
              </Text>
            </div>
            {session.endedBecause && !error && (
              <Alert color="yellow" role="status">
                {session.endedBecause}
              </Alert>
            )}
            {error && (
              <Alert color="red" role="alert">
                {error}
              </Alert>
            )}
            <TextInput
              label="Email"
              type="email"
              autoComplete="username"
              required
              {...form.getInputProps('email')}
            />
            <PasswordInput
              label="Password"
              autoComplete="current-password"
              required
              {...form.getInputProps('password')}
            />
            <Button type="submit" loading={form.submitting}>
              Sign in
            </Button>
          </Stack>
        </form>
      </Paper>
    </Center>
  );
}
