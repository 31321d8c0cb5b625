// The platform's DNS resolver (resolver.ts), for every area that looks names up.
import { Module } from '@nestjs/common';
import { DnsResolver } from './resolver';

@Module({ providers: [DnsResolver], exports: [DnsResolver] })
export class DnsModule {}
